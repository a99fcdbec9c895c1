import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describeMysql, describePostgres } from '@hilo/testing';
import { Customer, defineEntities } from '../fixtures/define-entities.js';
import { workerEnvironment, workerTsconfig, createSchema } from './compat.js';
import { openOrm } from './orm.js';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'cli.mjs');

/** Three processes persisting customers at once into one database never share a key. */
export function crossProcessSuite(kind: 'postgres' | 'mysql'): void {
  const describeDb = kind === 'postgres' ? describePostgres : describeMysql;
  describeDb(`mikro-orm: several processes on ${kind}`, (db) => {
    beforeAll(async () => {
      const { orm } = await openOrm(kind, db.url, defineEntities, { blockSize: 7, adaptive: false });
      await createSchema(orm);
      await orm.close();
    });

    it('should never hand out the same key to two processes', async () => {
      const workers = await Promise.all(
        [0, 1, 2].map(() =>
          run(process.execPath, [tsx, join(here, 'worker.ts'), kind, db.url, '60', '6'], {
            env: { ...workerEnvironment(), TSX_TSCONFIG_PATH: workerTsconfig },
            timeout: 50_000,
          }),
        ),
      );
      const keys = workers.flatMap((w) => JSON.parse(w.stdout) as number[]);
      expect(keys).toHaveLength(180);
      expect(new Set(keys).size).toBe(180);

      const { orm } = await openOrm(kind, db.url, defineEntities, { blockSize: 7, adaptive: false });
      try {
        const stored = await orm.em.fork().find(Customer, {});
        expect(stored.map((c) => c.id).sort((a, b) => a - b)).toEqual([...keys].sort((a, b) => a - b));
      } finally {
        await orm.close();
      }
    });
  });
}
