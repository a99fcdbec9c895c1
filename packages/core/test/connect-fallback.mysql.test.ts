// connect(url) in an app that installed the other driver of its database: postgres.js without `pg`, the
// mariadb connector without `mysql2` (what Prisma's MariaDB adapter brings). A child process runs connect()
// with the usual driver made unresolvable, draws keys, and proves that driver was really absent.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describeMysql, describePostgres, workerMapping } from '@hilo/testing';

const run = promisify(execFile);
const worker = fileURLToPath(new URL('./workers/connect-worker.ts', import.meta.url));
const hide = fileURLToPath(new URL('./workers/hide-modules.mjs', import.meta.url));

interface Drawn {
  keys: number[];
  pg: boolean;
  mysql2: boolean;
  fallbackVersion: string;
}

/** Keys from connect() in a child process where `hidden` cannot be loaded; `fallback` is the driver it should use. */
async function keysWithout(hidden: string, fallback: string, url: string): Promise<Drawn> {
  // under the `core drivers (oldest)` project the child maps the drivers to their oldest releases, as Jest does
  const mapping = workerMapping();
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', ...mapping.args, '--import', hide, worker, url, fallback],
    {
      env: { ...process.env, ...mapping.env, HILO_HIDE_MODULES: hidden },
    },
  );
  const drawn = JSON.parse(stdout.trim().split('\n').pop()!) as Drawn;
  const expected = (globalThis as { HILO_WORKER_PACKAGES?: Record<string, string> }).HILO_WORKER_PACKAGES?.[fallback];
  if (expected !== undefined) expect(drawn.fallbackVersion).toBe(expected);
  return drawn;
}

describePostgres('connect() on PostgreSQL without `pg`', (db) => {
  it('opens its pool with postgres.js and hands out keys', async () => {
    const { keys, pg } = await keysWithout('pg', 'postgres', db.url);
    expect(pg).toBe(false);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
  }, 30_000);

  it('says which drivers it looked for when neither is installed', async () => {
    await expect(keysWithout('pg,postgres', 'postgres', db.url)).rejects.toMatchObject({
      stderr: expect.stringMatching(
        /neither `pg` nor `postgres` \(postgres\.js\) is installed: run `npm install pg`/,
      ) as unknown,
    });
  }, 30_000);
});

describeMysql('connect() on MariaDB without `mysql2`', (db) => {
  it('opens its pool with the mariadb connector and hands out keys', async () => {
    const { keys, mysql2 } = await keysWithout('mysql2', 'mariadb', db.url);
    expect(mysql2).toBe(false);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
  }, 30_000);

  it('says which drivers it looked for when neither is installed', async () => {
    await expect(keysWithout('mysql2,mariadb', 'mariadb', db.url)).rejects.toMatchObject({
      stderr: expect.stringMatching(/neither `mysql2` nor `mariadb` is installed: run `npm install mysql2`/) as unknown,
    });
  }, 30_000);
});
