#!/usr/bin/env node
// `./pnpm build`: builds every package (`pnpm -r run build`) unless nothing the build reads changed since the
// last successful build here. The proof is a hash of every tracked file but tests and Markdown, with the Node.js
// version, kept in node_modules/.cache/hilo-build-stamp; `--force` builds anyway. `./pnpm demo` and every test
// tier build through it, so a run after editing only a test starts at once.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const isFile = (file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;
const stampFile = path.join(root, 'node_modules', '.cache', 'hilo-build-stamp');

/**
 * A hash of what `pnpm -r run build` reads: every file git tracks or would track, but Markdown and what lies under a
 * `test/` folder (the Prisma schemas there excepted: the build generates the test clients from them).
 */
function buildInputsHash() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) return undefined; // not a git checkout: always build
  const hash = createHash('sha256').update(process.version).update('\0');
  const files = listed.stdout
    .split('\0')
    .filter((file) => file !== '' && !file.endsWith('.md') && (!/(^|\/)test\//.test(file) || file.endsWith('.prisma')))
    .sort();
  for (const file of files) {
    const full = path.join(root, file);
    if (!isFile(full)) continue; // deleted in the work tree, or a link to a folder (a clone's .tools)
    hash.update(file).update('\0').update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

/** Whether every workspace package that compiles still has its `dist` (one may be deleted by hand). */
function outputsPresent() {
  const listed = spawnSync('git', ['ls-files', '-z', '--', 'packages/*/package.json', 'examples/*/package.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  return (
    listed.stdout
      .split('\0')
      // packages whose build compiles into dist (packages/prisma-compat's only generates clients)
      .filter(
        (file) =>
          file !== '' && /"build": "[^"]*(build-package|tsc )/.test(readFileSync(path.join(root, file), 'utf8')),
      )
      .every((file) => existsSync(path.join(root, path.dirname(file), 'dist')))
  );
}

/**
 * Runs `pnpm -r run build` unless the stamp proves the inputs unchanged since the last successful build.
 * @param {{ force?: boolean }} [options]
 * @returns {{ built: boolean, status: number }}
 */
export function buildIfChanged(options = {}) {
  const want = buildInputsHash();
  if (
    !options.force &&
    want !== undefined &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === want &&
    outputsPresent()
  ) {
    return { built: false, status: 0 };
  }
  rmSync(stampFile, { force: true });
  const result = spawnSync('pnpm', ['-r', 'run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.error) console.error(`hilo: could not run pnpm (run the build through ./pnpm): ${result.error.message}`);
  const status = result.status ?? 1;
  if (status === 0 && want !== undefined) {
    mkdirSync(path.dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, want);
  }
  return { built: true, status };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { built, status } = buildIfChanged({ force: process.argv.includes('--force') });
  if (!built) console.error('hilo: build is up to date (node scripts/build.mjs --force rebuilds)');
  process.exit(status);
}
