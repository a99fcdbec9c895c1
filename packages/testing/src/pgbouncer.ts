/**
 * A real PgBouncer (Debian's `pgbouncer`, `HILO_PGBOUNCER` for another binary) in front of a test's PostgreSQL, for
 * the pooler tests (issue #47, item 3). Each start runs a PgBouncer of its own from a temporary folder on a free
 * loopback port, as the `postgres` OS user when the suite runs as root (PgBouncer refuses root), in the foreground
 * as this process's child, so a test sees it exit and a stop always ends it. The machine's own PgBouncer, if any, is
 * never touched.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './embedded-postgres.ts';
import { describeMissingPeer } from './missing-peer.ts';

/** How PgBouncer hands server connections to clients. */
export type PoolMode = 'session' | 'transaction' | 'statement';

/** A running PgBouncer in front of one database. */
export interface RunningPgBouncer {
  /** The application's URL: the backend's user, password and database, through PgBouncer. */
  readonly url: string;
  readonly poolMode: PoolMode;
  /** The last lines PgBouncer logged, for failure messages. */
  log(lines?: number): string;
  /** Ends PgBouncer (SIGTERM, then SIGKILL) and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

const ENABLE = 'install PgBouncer (Debian: apt-get install pgbouncer) or set HILO_PGBOUNCER to its binary';

/** The PgBouncer binary, or why there is none. */
function findPgBouncer(): { bin: string } | { problem: string } {
  const configured = process.env['HILO_PGBOUNCER'];
  const candidates = configured ? [configured] : ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];
  const bin = candidates.find((path) => existsSync(path));
  return bin ? { bin } : { problem: `no PgBouncer at ${candidates.join(', ')}; ${ENABLE}` };
}

/** Why a PgBouncer cannot be started here, or `undefined` when it can. */
export function pgBouncerProblem(): string | undefined {
  const found = findPgBouncer();
  return 'problem' in found ? found.problem : undefined;
}

/** The `postgres` OS user's ids when running as root (PgBouncer refuses root), else `undefined`. */
function runAsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

async function acceptsConnections(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** A quoted value of a PgBouncer connection string (`key='va''lue'`). */
const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * Starts a PgBouncer in `poolMode` in front of the PostgreSQL database of `backendUrl` (a `postgres://` URL with
 * user, password, host, port and database) and resolves once it accepts connections.
 */
export async function startPgBouncer(backendUrl: string, poolMode: PoolMode): Promise<RunningPgBouncer> {
  const found = findPgBouncer();
  if ('problem' in found) throw new Error(found.problem);
  const backend = new URL(backendUrl);
  const database = decodeURIComponent(backend.pathname.slice(1)) || 'postgres';
  const user = decodeURIComponent(backend.username || 'postgres');
  const password = decodeURIComponent(backend.password);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hilo-pgbouncer-'));
  const owner = runAsUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const logFile = join(dir, 'pgbouncer.log');
  const ini = join(dir, 'pgbouncer.ini');
  const target = [
    `host=${backend.hostname}`,
    `port=${backend.port || '5432'}`,
    `dbname=${quoted(database)}`,
    `user=${quoted(user)}`,
    ...(password ? [`password=${quoted(password)}`] : []),
  ].join(' ');
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = ${target}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      `pool_mode = ${poolMode}`,
      'default_pool_size = 10',
      'max_client_conn = 200',
      `logfile = ${logFile}`,
      'ignore_startup_parameters = extra_float_digits,options',
      // a backend that is gone: new logins fail fast instead of waiting out the client's timeout
      'server_login_retry = 1',
      'server_connect_timeout = 2',
      '',
    ].join('\n'),
  );
  if (owner) chownSync(ini, owner.uid, owner.gid);
  const child: ChildProcess = spawn(found.bin, [ini], {
    ...owner,
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = (lines = 30) => {
    const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    return `${text}${stderr}`.trimEnd().split('\n').slice(-lines).join('\n');
  };
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(killer);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = performance.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || performance.now() > deadline) {
      const why = log();
      await stop();
      throw new Error(`PgBouncer did not start on 127.0.0.1:${port}:\n${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const credentials = `${encodeURIComponent(user)}${password ? `:${encodeURIComponent(password)}` : ''}@`;
  return { url: `postgres://${credentials}127.0.0.1:${port}/${database}`, poolMode, log, stop };
}

/** What {@link describePgBouncer} gives its body. */
export interface PgBouncerPerTest {
  /** Starts a PgBouncer for the current test; stopped after the test, pass or fail. */
  start(backendUrl: string, poolMode: PoolMode): Promise<RunningPgBouncer>;
}

/**
 * `describe` for pooler tests. Without a PgBouncer binary: with `CI=true` the block fails with the reason;
 * elsewhere it is skipped with a one-line hint on how to enable it.
 */
export function describePgBouncer(title: string, body: (pgbouncer: PgBouncerPerTest) => void): void {
  const problem = pgBouncerProblem();
  if (problem) {
    const placeholder = { start: () => Promise.reject(new Error(problem)) };
    describeMissingPeer({ needs: 'PgBouncer', skipping: 'PgBouncer tests', problem, placeholder }, title, body);
    return;
  }
  const stops: (() => Promise<void>)[] = [];
  describe(title, () => {
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
    });
    body({
      start: async (backendUrl, poolMode) => {
        const running = await startPgBouncer(backendUrl, poolMode);
        stops.push(running.stop);
        return running;
      },
    });
  });
}
