// The records that let the full test tier skip a long end-to-end file whose inputs have not changed since it
// passed (scripts/test.mjs; CONTRIBUTING.md, "Why the tiers look like this"). Tested by scripts/test/e2e-records.test.ts.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const isFile = (file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/**
 * End-to-end files whose pass is remembered: each packs the packages or clones the repository and takes from half a
 * minute to minutes (installing every package with npm on three Node.js versions, Bun and Deno; cloning the
 * repository and running the README's commands in the clone; a `nest new` app's e2e run; npm's resolution of every
 * README install line; better-sqlite3 12 compiled and run under Node.js 22).
 * The full tier skips one only when a pass is on record for exactly the same inputs: a hash of the Node.js version
 * and every file git tracks or would track outside test folders (the file itself, the support files of
 * scripts/test and an example's own test files that are not Jest suites of the workspace included), taken after
 * that pass. A record older than a week does not count (the npm registry moves). The records live outside the
 * clone, in ~/.cache/hilo-e2e (XDG_CACHE_HOME), so a fresh clone of the same commit on this machine finds them.
 * HILO_E2E_CACHE=off runs them regardless.
 */
export const REMEMBERED = [
  'scripts/test/pack-install.postgres.test.ts',
  'scripts/test/clone.postgres.test.ts',
  'scripts/test/nest-app.postgres.test.ts',
  'scripts/test/npm-peers.test.ts',
  'scripts/test/better-sqlite3-12.test.ts',
];
const RECORD_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** Where records live: read at each call, so that a test can point XDG_CACHE_HOME elsewhere. */
const recordDir = () => path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'hilo-e2e');

/** The inputs of an end-to-end file: see {@link REMEMBERED}. */
export function endToEndInputsHash(file) {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) return undefined;
  const hash = createHash('sha256').update(process.version).update('\0').update(file).update('\0');
  const inputs = listed.stdout
    .split('\0')
    .filter(
      (f) =>
        f !== '' &&
        (!/(^|\/)test\//.test(f) ||
          f === file ||
          // support files of the end-to-end files, and an example's own test files (examples/nestjs's e2e specs,
          // which nest-app copies into its app), are inputs; other test files are not
          (/^(scripts|examples\/[^/]+)\/test\//.test(f) && !f.endsWith('.test.ts'))),
    )
    .sort();
  for (const f of inputs) {
    const full = path.join(root, f);
    if (isFile(full)) hash.update(f).update('\0').update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

const recordPath = (file, key) => path.join(recordDir(), `${path.basename(file, '.test.ts')}-${key}`);

/** The remembered files a pass on record covers, with the record's time, or none when the cache is off. */
export function rememberedPasses() {
  if (process.env.HILO_E2E_CACHE === 'off') return [];
  const passes = [];
  for (const file of REMEMBERED) {
    const key = endToEndInputsHash(file);
    if (key === undefined) continue;
    const record = recordPath(file, key);
    if (!existsSync(record)) continue;
    const passedAt = statSync(record).mtimeMs;
    if (Date.now() - passedAt < RECORD_MAX_AGE_MS) passes.push({ file, key, passedAt });
  }
  return passes;
}

/**
 * Records a pass for each remembered file that Jest ran and that passed every test, under the inputs hash it had
 * when the run started (`keys`; a file whose inputs changed during the run is left out by the caller).
 * @param {string} resultsFile Jest's `--json` output
 * @param {Map<string, string>} keys
 */
export function recordPasses(resultsFile, keys) {
  if (!existsSync(resultsFile)) return;
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  for (const file of REMEMBERED) {
    const runs = results.testResults.filter((r) => path.relative(root, r.name) === file);
    const key = keys.get(file);
    if (
      key === undefined ||
      runs.length === 0 ||
      !runs.every((r) => r.status === 'passed' && r.assertionResults.every((a) => a.status === 'passed'))
    )
      continue;
    mkdirSync(recordDir(), { recursive: true });
    writeFileSync(
      recordPath(file, key),
      `${new Date().toISOString()} ${results.numPassedTests} tests passed in this run\n`,
    );
  }
}
