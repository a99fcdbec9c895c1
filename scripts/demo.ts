// `pnpm demo`: builds what the demo runs if it changed, runs the example apps against HILO_PG_URL, or an embedded
// PostgreSQL started for the demo, and prints per ORM the keys known before flush and the statements issued, hilo vs
// identity path; then how long it took, from the start of `./pnpm demo` (install and build included).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningPostgres } from '@hilo/testing';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import * as buildScript from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examples = ['typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely', 'nestjs'] as const;

// ./pnpm passes when it started, and when its install started and ended (seconds since the epoch); run otherwise,
// the demo counts from its own start and reports no install
const [started, installStarted, installEnded] = (process.env['HILO_DEMO_TIMES'] ?? '').split(' ').map(Number);
const wrapped = [started, installStarted, installEnded].every((t) => t !== undefined && Number.isFinite(t));
const t0 = wrapped ? started! * 1000 : performance.timeOrigin;
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

const buildStarted = Date.now();
const { buildIfChanged } = buildScript as {
  buildIfChanged(options: { scope: 'demo' }): { built: boolean; status: number };
};
if (buildIfChanged({ scope: 'demo' }).status !== 0) {
  process.stderr.write('demo: the build failed (above)\n');
  process.exit(1);
}
const appsStarted = Date.now();
// imported after the build, which makes its dist
const { createPostgresDatabase, startEmbeddedPostgres } = await import('@hilo/testing');

let embedded: RunningPostgres | undefined;
if (!process.env.HILO_PG_URL) {
  process.stderr.write('demo: starting an embedded PostgreSQL…\n');
  try {
    embedded = await startEmbeddedPostgres();
  } catch (error) {
    // one line that says why and what to do, never a stack trace
    process.stderr.write(`demo: ${(error as Error).message}\n`);
    process.exit(1);
  }
  process.env.HILO_PG_URL = embedded.url;
}
const rows: string[] = [];
let failed = false;
try {
  for (const name of examples) {
    const db = await createPostgresDatabase();
    try {
      console.log(`\n=== ${name} ===`);
      const tsconfig = join(root, 'examples', name, 'tsconfig.json');
      // Nest's injection needs decorator metadata, which tsx does not emit: run its tsc build (pnpm build)
      const args =
        name === 'nestjs'
          ? [join(root, 'examples', name, 'dist', 'demo.js'), db.url]
          : ['--import', 'tsx', join(root, 'scripts', 'run-example.ts'), name, db.url];
      const child = spawnSync(process.execPath, args, {
        cwd: join(root, 'examples', name),
        env: { ...process.env, ...(existsSync(tsconfig) ? { TSX_TSCONFIG_PATH: tsconfig } : {}) },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
      });
      const lines = child.stdout.trimEnd().split('\n');
      const last = lines.pop() ?? '';
      for (const line of lines) console.log(line);
      if (child.status !== 0) throw new Error(`exited with ${child.status}\n${last}`);
      const s = JSON.parse(last) as { keysBeforeFlush: number; statements: number; identityStatements: number };
      rows.push(`| ${name} | ${s.keysBeforeFlush} | ${s.statements} | ${s.identityStatements} |`);
    } catch (error) {
      failed = true;
      console.error(`demo: the ${name} example failed: ${(error as Error).message}`);
    } finally {
      await db.drop();
    }
  }
} finally {
  await embedded?.stop();
}
console.log('\n| ORM | keys known before flush | SQL statements with hilo | with the ORM identity path |');
console.log('| --- | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
const parts = [
  ...(wrapped ? [`install ${seconds((installEnded! - installStarted!) * 1000)}`] : []),
  `build ${seconds(appsStarted - buildStarted)}`,
  `apps ${seconds(Date.now() - appsStarted)}`,
];
console.log(`\ndemo: ${seconds(Date.now() - t0)} (${parts.join(', ')})`);
process.exitCode = failed ? 1 : 0;
