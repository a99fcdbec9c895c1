#!/usr/bin/env node
// The test tiers behind `./pnpm test` (see CONTRIBUTING.md, "The suite in tiers"):
//
//   ./pnpm test                 full: build, type-check, API reports, every Jest project (every peer version, end-to-end too)
//   ./pnpm test:quick           quick: build, the workspace's newest versions only, no end-to-end and no fault injection
//   ./pnpm test FILE… [JEST…]   one file or a few: build, then Jest on those files in every project that has them
//                               (add `--selectProjects hilo` for the newest versions only); no type-check
//
// The build is skipped when nothing it reads changed since the last one (a stamp in node_modules/.cache), so a
// one-file run after editing a test starts Jest at once. Each tier prints its steps' times at the end.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from './build.mjs';
import { endToEndInputsHash, recordPasses, REMEMBERED, rememberedPasses } from './e2e-records.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const JEST = [
  '--experimental-vm-modules',
  '--no-warnings=ExperimentalWarning',
  path.join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
];

const HELP = `Usage:
  ./pnpm test                      the full tier: build, type-check, API reports, every Jest project (what CI runs)
  ./pnpm test:quick                the quick tier: newest versions, no end-to-end or fault-injection files
  ./pnpm test FILE... [JEST ARGS]  build if needed, then Jest on FILE (a path or a pattern) in every project
                                   that includes it; e.g. ./pnpm test packages/core/test/generator.test.ts
                                   ./pnpm test --selectProjects hilo -- packages/typeorm/test/upsert.postgres.test.ts
Environment: HILO_PG_URL, HILO_MYSQL_URL, CI=true (a missing database fails instead of skipping),
HILO_E2E_CACHE=off (rerun end-to-end files whose inputs passed before). See CONTRIBUTING.md.`;

const steps = [];
function step(name, command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  const seconds = (Date.now() - started) / 1000;
  steps.push({ name, seconds, status: result.status ?? 1 });
  return result.status ?? 1;
}

function build() {
  const started = Date.now();
  const result = buildIfChanged();
  steps.push({
    name: result.built ? 'build' : 'build (up to date)',
    seconds: (Date.now() - started) / 1000,
    status: result.status,
  });
  return result.status;
}

function summary(tier) {
  const total = steps.reduce((sum, s) => sum + s.seconds, 0);
  const parts = steps.map((s) => `${s.name} ${s.seconds.toFixed(0)} s${s.status === 0 ? '' : ' (failed)'}`);
  console.log(`\ntier ${tier}: ${parts.join(', ')}; total ${total.toFixed(0)} s (${(total / 60).toFixed(1)} min)`);
}

const [tierArg, ...rest] = process.argv.slice(2);
let args = rest;
if (args[0] === '--') args = args.slice(1); // `pnpm test -- x` passes the `--` on
if (args.includes('--help') || args.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}

let tier = tierArg;
if (tier === 'full' && args.length > 0) tier = 'files';

let status = build();
if (status === 0 && tier === 'full') status = step('type-check', 'pnpm', ['run', 'typecheck:only']);
// the checked-in API reports (packages/*/api) against what the build exports; `./pnpm api:update` rewrites them
if (status === 0 && tier === 'full') status = step('api report', process.execPath, ['scripts/api-report.mjs']);
if (status === 0) {
  // Node's on-disk compile cache for the hundreds of processes the suites start (workers, the CLI, examples):
  // each after the first skips compiling the same modules again
  const compileCache = path.join(root, 'node_modules', '.cache', 'node-compile-cache');
  const env = { NODE_COMPILE_CACHE: compileCache, ...process.env, HILO_TEST_TIER: tier };
  const jestArgs = [...JEST, ...args];
  const resultsFile = path.join(root, 'node_modules', '.cache', 'hilo-jest-results.json');
  const keys = new Map();
  if (tier === 'full') {
    const passes = rememberedPasses();
    for (const pass of passes) {
      console.log(
        `${pass.file}: passed on ${new Date(pass.passedAt).toISOString()} with the same inputs ` +
          `(${pass.key.slice(0, 12)}); not run again (HILO_E2E_CACHE=off runs it)`,
      );
    }
    env.HILO_E2E_PASSED = passes.map((p) => p.file).join(',');
    for (const file of REMEMBERED) if (!passes.some((p) => p.file === file)) keys.set(file, endToEndInputsHash(file));
    rmSync(resultsFile, { force: true });
    jestArgs.push('--json', `--outputFile=${resultsFile}`);
  }
  status = step('jest', process.execPath, jestArgs, { env });
  // the inputs are hashed again after the run: a file edited meanwhile is not recorded as passed
  if (tier === 'full')
    recordPasses(resultsFile, new Map([...keys].filter(([file, key]) => endToEndInputsHash(file) === key)));
}
summary(tier);
process.exit(status);
