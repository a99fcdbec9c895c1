import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPostgresDatabase } from '@hilo/testing';
import type { Result } from './measure.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The ratio each ORM's graph benchmark should reach (issue #9; Drizzle and Kysely: issue #19). */
const TARGETS = { typeorm: 1.0, prisma: 3.0, 'mikro-orm': 1.0, drizzle: 1.0, kysely: 1.0 } as const;

interface GraphBench {
  hiloMs: number;
  identityMs: number;
  hiloStatements: number;
  identityStatements: number;
}

/**
 * 1,000 orders × 10 items stored through each ORM, with hilo keys and with the ORM's identity path, in one
 * run. Each example's `benchGraph()` (examples/NAME/src/bench.ts) runs in a child process of its own, with
 * the example's tsconfig, on a fresh database of the PostgreSQL server at `HILO_PG_URL`.
 */
export async function ormBenchmarks(): Promise<Result[]> {
  const out: Result[] = [];
  for (const [name, target] of Object.entries(TARGETS)) {
    const db = await createPostgresDatabase();
    try {
      const tsconfig = join(root, 'examples', name, 'tsconfig.json');
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'run-example.ts'), name, db.url, '--bench'], {
        cwd: join(root, 'examples', name),
        env: { ...process.env, ...(existsSync(tsconfig) ? { TSX_TSCONFIG_PATH: tsconfig } : {}) },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
      });
      const last = child.stdout.trimEnd().split('\n').pop() ?? '';
      if (child.status !== 0) throw new Error(`the ${name} graph benchmark exited with ${child.status}: ${last}`);
      const r = JSON.parse(last) as GraphBench;
      const ratio = r.identityMs / r.hiloMs;
      out.push({
        name: `orm.${name}.graph`,
        value: r.hiloMs,
        unit: 'ms',
        ratio,
        target,
        note: `1,000 orders × 10 items; identity path ${Math.round(r.identityMs)} ms; ${r.hiloStatements} vs ${r.identityStatements} statements; target ≥ ${target.toFixed(1)}${ratio < target ? ' (missed)' : ''}`,
      });
    } finally {
      await db.drop();
    }
  }
  return out;
}
