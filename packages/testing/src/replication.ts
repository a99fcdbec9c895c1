/**
 * A real PostgreSQL primary with a streaming standby of its own, for failover tests (issue #40). Both servers
 * run from the machine's PostgreSQL binaries (`pg_config --bindir`, or `HILO_PG_BINDIR`) in one temporary
 * folder; replication goes through a fault proxy, so a test can make the standby lag or cut it off while the
 * primary goes on; the application reaches "the current primary" through a forwarder the test switches.
 *
 * How the servers run: as root, each postmaster runs as the `postgres` OS user and as PID 1 of its own PID and
 * IPC namespaces (`unshare --pid --ipc --fork`, then `setpriv`). A SIGKILL then takes the whole server down at
 * once, like a crashed host, and the kernel reaps every one of its processes and removes its System V memory:
 * on a machine whose init does not reap orphans (this one's), a postmaster killed outside a namespace leaves its
 * children as zombies for good. Where namespaces are not allowed, the postmaster runs as a plain child in a
 * process group of its own. Either way it is this process's child, never detached by `pg_ctl`, so the test
 * sees it exit. `pg_ctl` itself is not used: it signals the PID in `postmaster.pid`, which inside a namespace
 * is 1; promotion goes through `pg_promote()`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './embedded-postgres.ts';
import { killIsolated, killNow, spawnIsolated, type IsolatedProcess, type OsUser } from './isolated-process.ts';
import { describeMissingPeer } from './missing-peer.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { startForwarder, type Forwarder } from './forwarder.ts';

/** The programs the pair needs, from one PostgreSQL installation. */
const PROGRAMS = ['initdb', 'postgres', 'pg_basebackup'] as const;

/** How to get the binaries; part of every "cannot run" message. */
const ENABLE =
  'install PostgreSQL server binaries (Debian: apt-get install postgresql) or set HILO_PG_BINDIR to their bin/ folder';

/** The name the standby connects with: what `synchronous_standby_names` lists to make it synchronous. */
export const STANDBY_NAME = 'standby';

/** Settings of the pair. */
export interface ReplicationOptions {
  /** The primary's `synchronous_commit`; default `on` (PostgreSQL's default). */
  readonly synchronousCommit?: 'on' | 'off' | 'local' | 'remote_write' | 'remote_apply';
  /**
   * Lists the standby in the primary's `synchronous_standby_names`, so a commit on the primary waits until the
   * standby has it; default false (asynchronous replication, the common default). {@link
   * ReplicatedPostgres.setSynchronousStandby} changes it later.
   */
  readonly synchronousStandby?: boolean;
  /** More server settings for both servers (`name → value`, written to postgresql.conf as given). */
  readonly settings?: Readonly<Record<string, string>>;
}

/** Which server. */
export type ReplicaRole = 'primary' | 'standby';

/** What a server says about itself: the candidates for noticing that a failover happened. */
export interface ServerIdentity {
  /** `pg_control_system().system_identifier`: made by initdb, copied by `pg_basebackup`. */
  readonly systemIdentifier: string;
  /** `pg_control_checkpoint().timeline_id`: the timeline of the server's latest checkpoint (or restartpoint). */
  readonly checkpointTimeline: number;
  /**
   * The timeline the server writes WAL on now (from `pg_walfile_name(pg_current_wal_lsn())`); `undefined` while
   * it is in recovery (a standby), where no WAL is written.
   */
  readonly walTimeline: number | undefined;
  /** `pg_is_in_recovery()`. */
  readonly inRecovery: boolean;
  /** `pg_postmaster_start_time()`. */
  readonly startedAt: Date;
  /** `inet_server_port()`: which server a connection through the application address reached. */
  readonly port: number;
}

/** A running primary and standby, from {@link startReplicatedPostgres}. */
export interface ReplicatedPostgres {
  /**
   * The application's URL (superuser `postgres`, database `postgres`): a forwarder to the current primary,
   * moved by {@link switchApplicationTo}. Give this to the code under test.
   */
  readonly url: string;
  /** Straight to the primary, bypassing every proxy: for the test's own checks. */
  readonly primaryUrl: string;
  /** Straight to the standby, bypassing every proxy: for the test's own checks. */
  readonly standbyUrl: string;
  /** The fault proxy the standby replicates through (primary ← proxy ← standby's WAL receiver). */
  readonly replicationProxy: FaultProxy;
  /** Which server the application's URL leads to now. */
  readonly applicationTarget: ReplicaRole;
  /**
   * Makes the standby lag while the primary goes on: with no argument replication stalls (nothing is delivered
   * either way and the connection stays open, as with a link that drops packets; a synchronous commit waits);
   * with `delayMs`, every chunk of the stream is delayed by that much. {@link resumeReplication} delivers what
   * was held.
   */
  lag(delayMs?: number): void;
  /**
   * Cuts replication: the replication connection is reset and new ones are refused, so the standby receives
   * nothing until {@link resumeReplication} while the primary keeps accepting writes (and, with a synchronous
   * standby, keeps its commits waiting).
   */
  cutReplication(): void;
  /** Ends {@link lag} or {@link cutReplication}: held data is delivered, and the standby reconnects within 1 s. */
  resumeReplication(): void;
  /**
   * Sets the primary's `synchronous_standby_names` to the standby (`true`) or to nothing (`false`), reloads, and
   * resolves once new sessions see it. With `true` and replication running, also waits until the standby
   * reports `sync` in `pg_stat_replication`.
   */
  setSynchronousStandby(on: boolean): Promise<void>;
  /**
   * Resolves once the standby has replayed everything the primary had written when this was called
   * (`pg_last_wal_replay_lsn()` ≥ the primary's `pg_current_wal_lsn()`); rejects after `timeoutMs` (default
   * 20 s), saying how far behind it is. Needs a live primary and running replication.
   */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /**
   * How many bytes of WAL the primary wrote that the standby has not replayed; `undefined` when either does not
   * answer.
   */
  replayLag(): Promise<bigint | undefined>;
  /**
   * Kills the primary with SIGKILL, postmaster and every process of it at once, as a crashed host: nothing is
   * flushed or sent afterwards. Resolves when the server is gone; connections to it (the application's
   * included) break.
   */
  killPrimary(): Promise<void>;
  /**
   * Promotes the standby (`pg_promote()`, waiting) and resolves once it accepts writes (a transaction ID can be
   * assigned). The application's URL does not move: call {@link switchApplicationTo}.
   */
  promoteStandby(): Promise<void>;
  /**
   * Points the application's URL at `role`: live connections through it are reset (as when a virtual IP or a
   * DNS name moves), new ones reach `role`.
   */
  switchApplicationTo(role: ReplicaRole): void;
  /** What `role` says about itself (system identifier, timelines, recovery, start time); see {@link ServerIdentity}. */
  identity(role: ReplicaRole): Promise<ServerIdentity>;
  /** Runs one statement on `role` directly (a new connection each time) and returns its rows. */
  query<Row extends Record<string, unknown>>(role: ReplicaRole, sql: string, params?: unknown[]): Promise<Row[]>;
  /** The last lines either server wrote to its log, for failure messages. */
  log(role: ReplicaRole, lines?: number): string;
  /**
   * Stops both servers (SIGKILL: the data is thrown away), the proxies and the forwarder, and removes the
   * temporary folder. Safe to call more than once, and after any failure; {@link describeReplication}'s
   * `start()` calls it after each test.
   */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// binaries and the OS user

let binaries: { bin: string } | { problem: string } | undefined;

/** The folder with initdb, postgres and pg_basebackup, or why there is none. */
function findBinaries(): { bin: string } | { problem: string } {
  if (binaries) return binaries;
  const candidates: string[] = [];
  const configured = process.env['HILO_PG_BINDIR'];
  if (configured) candidates.push(configured);
  else {
    try {
      candidates.push(
        execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
    } catch {
      // no pg_config: look where Debian and Ubuntu install the server
    }
    if (existsSync('/usr/lib/postgresql')) {
      const versions = readdirSync('/usr/lib/postgresql')
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a));
      candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
    }
  }
  const bin = candidates.find((dir) => PROGRAMS.every((program) => existsSync(join(dir, program))));
  const where = candidates.length > 0 ? candidates.join(', ') : 'pg_config --bindir';
  binaries = bin
    ? { bin }
    : {
        problem: `no PostgreSQL server binaries (${PROGRAMS.join(', ')}) in ${where}; ${ENABLE}`,
      };
  return binaries;
}

/**
 * Why a primary with a standby cannot be started here, or `undefined` when it can: the PostgreSQL server
 * binaries are missing (`pg_config --bindir`, `/usr/lib/postgresql/N/bin`, or `HILO_PG_BINDIR`).
 */
export function replicationProblem(): string | undefined {
  const found = findBinaries();
  return 'problem' in found ? found.problem : undefined;
}

/** As root: the `postgres` user (created when missing), since PostgreSQL refuses to run as root. */
export function serverUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--user-group', 'postgres'], { stdio: 'ignore' });
  }
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

/** Runs a short-lived PostgreSQL program as the server's user; rejects with its last output line when it fails. */
function run(
  user: OsUser | undefined,
  program: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(program, args, {
      ...(user ?? {}),
      cwd,
      env: { ...process.env, LC_ALL: 'C', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else
        reject(new Error(`${program.split('/').pop()} exited with ${code}: ${output.trim().split('\n').pop() ?? ''}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// one server

/** A running server: the isolated postmaster and the port it listens on. */
interface Server1 extends IsolatedProcess {
  readonly port: number;
}

async function startServer(
  bin: string,
  user: OsUser | undefined,
  dataDir: string,
  port: number,
  cwd: string,
): Promise<Server1> {
  let ready: (() => void) | undefined;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const server = await spawnIsolated(user, [join(bin, 'postgres'), '-D', dataDir, '-p', String(port)], {
    cwd,
    env: { ...process.env, LC_ALL: 'C' },
    onLine: (line) => {
      if (line.includes('ready to accept')) ready?.();
    },
  });
  const last = () => server.logLines.slice(-2).join(' | ');
  await new Promise<void>((resolve, reject) => {
    void isReady.then(resolve);
    void server.exited.then(() =>
      reject(new Error(`postgres exited (${server.child.exitCode ?? server.child.signalCode}): ${last()}`)),
    );
    setTimeout(() => reject(new Error(`postgres not ready after 60 s: ${last()}`)), 60_000).unref();
  });
  return Object.assign(server, { port });
}

// ---------------------------------------------------------------------------------------------------------------
// the pair

/** Pairs not stopped yet: killed and removed when the process exits without stopping them. */
const live = new Set<{ servers: Server1[]; dir: string }>();
let exitHook = false;

function onExitCleanUp(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const pair of live) {
      for (const server of pair.servers) {
        killNow(server);
      }
      rmSync(pair.dir, { recursive: true, force: true });
    }
  });
}

function serverSettings(options: ReplicationOptions): string {
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: "''",
    max_connections: '50',
    shared_buffers: '16MB',
    fsync: 'off',
    dynamic_shared_memory_type: 'mmap',
    wal_level: 'replica',
    max_wal_senders: '5',
    max_replication_slots: '5',
    hot_standby: 'on',
    synchronous_commit: options.synchronousCommit ?? 'on',
    synchronous_standby_names: options.synchronousStandby ? `'${STANDBY_NAME}'` : "''",
    wal_retrieve_retry_interval: "'200ms'",
    wal_receiver_status_interval: "'1s'",
    ...options.settings,
  };
  return `\n# hilo replication harness\n${Object.entries(settings)
    .map(([name, value]) => `${name} = ${value}`)
    .join('\n')}\n`;
}

/**
 * Starts a primary and a streaming standby (see the module's comment for how they run) and the proxies around
 * them; a few seconds. Throws with the reason when the binaries are missing or a server fails to start, having
 * cleaned up what it started. Prefer {@link describeReplication}'s `start()`, which also stops the pair after
 * the test.
 */
export async function startReplicatedPostgres(options: ReplicationOptions = {}): Promise<ReplicatedPostgres> {
  return await launch(options, () => undefined);
}

/** Starts the pair; hands `register` its `stop` before anything starts, so a start cut short can be cleaned up. */
async function launch(
  options: ReplicationOptions,
  register: (stop: () => Promise<void>) => void,
): Promise<ReplicatedPostgres> {
  const found = findBinaries();
  if ('problem' in found) throw new Error(found.problem);
  const { bin } = found;
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'hilo-replication-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const pair = { servers: [] as Server1[], dir };
  live.add(pair);
  onExitCleanUp();
  const password = randomBytes(12).toString('hex');
  const replicationPassword = randomBytes(12).toString('hex');
  let replicationProxy: FaultProxy | undefined;
  let forwarder: Forwarder | undefined;
  let primary: Server1 | undefined;
  let standby: Server1 | undefined;
  let stopped = false;

  // each part is safe to repeat: a start cut short by stop() cleans up again what it started meanwhile
  const cleanUp = async (): Promise<void> => {
    await Promise.all(pair.servers.map(killIsolated));
    await forwarder?.close();
    await replicationProxy?.close();
    rmSync(dir, { recursive: true, force: true });
    live.delete(pair);
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await cleanUp();
  };
  /** Throws when stop() was called while the start awaited something. */
  const stillWanted = (): void => {
    if (stopped) throw new Error('stopped while starting');
  };

  register(stop);
  try {
    const primaryDir = join(dir, 'primary');
    const standbyDir = join(dir, 'standby');
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (user) chownSync(passwordFile, user.uid, user.gid);
    await run(
      user,
      join(bin, 'initdb'),
      [
        `--pgdata=${primaryDir}`,
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--no-sync',
      ],
      dir,
    );
    stillWanted();
    // initdb's pg_hba.conf already admits replication connections from loopback with a password
    appendFileSync(join(primaryDir, 'postgresql.conf'), serverSettings(options));
    primary = await startServer(bin, user, primaryDir, await freePort(), dir);
    pair.servers.push(primary);
    stillWanted();
    const primaryPort = primary.port;
    const urlOf = (port: number) => `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    // synchronous_commit=local: with a synchronous standby listed, a commit now would wait for a standby not made yet
    const admin = new pg.Client({ connectionString: urlOf(primaryPort), options: '-c synchronous_commit=local' });
    await admin.connect();
    try {
      await admin.query(`create role replicator with replication login password '${replicationPassword}'`);
    } finally {
      await admin.end();
    }
    stillWanted();

    replicationProxy = await startFaultProxy({ host: '127.0.0.1', port: primaryPort });
    stillWanted();
    // through the proxy, so that -R writes the proxy's address into the standby's primary_conninfo
    await run(
      user,
      join(bin, 'pg_basebackup'),
      [
        `--pgdata=${standbyDir}`,
        '--write-recovery-conf',
        '--wal-method=stream',
        '--checkpoint=fast',
        '--create-slot',
        '--slot=hilo_standby',
        '--no-sync',
        `--dbname=host=127.0.0.1 port=${replicationProxy.port} user=replicator application_name=${STANDBY_NAME}`,
      ],
      dir,
      { PGPASSWORD: replicationPassword },
    );
    stillWanted();
    const autoConf = readFileSync(join(standbyDir, 'postgresql.auto.conf'), 'utf8');
    if (!autoConf.includes('password=')) {
      throw new Error(`pg_basebackup -R wrote no password into primary_conninfo: ${autoConf.trim()}`);
    }
    standby = await startServer(bin, user, standbyDir, await freePort(), dir);
    pair.servers.push(standby);
    stillWanted();
    forwarder = await startForwarder(primaryPort);
    stillWanted();
  } catch (error) {
    const logs = [primary, standby].flatMap((server) => server?.logLines.slice(-3) ?? []).join(' | ');
    stopped = true;
    await cleanUp().catch(() => undefined);
    throw new Error(`primary and standby could not start: ${(error as Error).message}${logs ? ` — ${logs}` : ''}`, {
      cause: error,
    });
  }

  const servers = { primary, standby };
  const app = forwarder;
  const proxy = replicationProxy;
  const urls = {
    primary: `postgres://postgres:${password}@127.0.0.1:${primary.port}/postgres`,
    standby: `postgres://postgres:${password}@127.0.0.1:${standby.port}/postgres`,
  };
  let applicationTarget: ReplicaRole = 'primary';

  async function query<Row extends Record<string, unknown>>(role: ReplicaRole, sql: string, params?: unknown[]) {
    const client = new pg.Client({ connectionString: urls[role], connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      return (await client.query<Row>(sql, params)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function walPosition(): Promise<string> {
    const [row] = await query<{ lsn: string }>('primary', 'select pg_current_wal_lsn()::text as lsn');
    if (!row) throw new Error('the primary gave no WAL position');
    return row.lsn;
  }

  async function replayLag(): Promise<bigint | undefined> {
    try {
      const lsn = await walPosition();
      const [row] = await query<{ behind: string | null }>(
        'standby',
        'select pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::bigint::text as behind',
        [lsn],
      );
      return row?.behind == null ? undefined : BigInt(row.behind);
    } catch {
      return undefined;
    }
  }

  return {
    url: `postgres://postgres:${password}@127.0.0.1:${app.port}/postgres`,
    primaryUrl: urls.primary,
    standbyUrl: urls.standby,
    replicationProxy: proxy,
    get applicationTarget() {
      return applicationTarget;
    },
    lag(delayMs) {
      if (delayMs === undefined) proxy.stall();
      else proxy.delay(delayMs);
    },
    cutReplication() {
      proxy.refuse();
      proxy.cut();
    },
    resumeReplication() {
      proxy.heal();
    },
    async setSynchronousStandby(on) {
      const names = on ? STANDBY_NAME : '';
      await query('primary', `alter system set synchronous_standby_names = '${names}'`);
      await query('primary', 'select pg_reload_conf()');
      await until('synchronous_standby_names after reload', 10_000, async () => {
        const [row] = await query<{ names: string }>('primary', 'select current_setting($1) as names', [
          'synchronous_standby_names',
        ]);
        return row?.names === names;
      });
      if (on && proxy.mode === 'pass') {
        await until('the standby reported as sync', 20_000, async () => {
          const rows = await query<{ state: string }>('primary', 'select sync_state as state from pg_stat_replication');
          return rows.some((row) => row.state === 'sync');
        });
      }
    },
    async waitForReplay(timeoutMs = 20_000) {
      const lsn = await walPosition();
      try {
        await until('standby replay', timeoutMs, async () => {
          const [row] = await query<{ ok: boolean | null }>(
            'standby',
            'select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok',
            [lsn],
          );
          return row?.ok === true;
        });
      } catch (error) {
        const [row] = await query<{ at: string | null }>(
          'standby',
          'select pg_last_wal_replay_lsn()::text as at',
        ).catch(() => [{ at: 'unknown' }]);
        throw new Error(
          `${(error as Error).message}: the primary is at ${lsn}, the standby replayed to ${row?.at ?? 'nothing'}`,
          {
            cause: error,
          },
        );
      }
    },
    replayLag,
    async killPrimary() {
      await killIsolated(servers.primary);
    },
    async promoteStandby() {
      const [row] = await query<{ promoted: boolean }>('standby', 'select pg_promote(true, 60) as promoted');
      if (row?.promoted !== true)
        throw new Error(`pg_promote() did not promote: ${servers.standby.logLines.slice(-3).join(' | ')}`);
      await until('the promoted standby accepting writes', 30_000, async () => {
        await query('standby', 'select txid_current()');
        return true;
      });
    },
    switchApplicationTo(role) {
      applicationTarget = role;
      app.switchTo(servers[role].port);
    },
    async identity(role) {
      const [row] = await query<{
        system_identifier: string;
        checkpoint_timeline: number;
        wal_file: string | null;
        in_recovery: boolean;
        started_at: Date;
        port: number;
      }>(
        role,
        `select (select system_identifier::text from pg_control_system()) as system_identifier,
                (select timeline_id from pg_control_checkpoint()) as checkpoint_timeline,
                case when pg_is_in_recovery() then null else pg_walfile_name(pg_current_wal_lsn()) end as wal_file,
                pg_is_in_recovery() as in_recovery,
                pg_postmaster_start_time() as started_at,
                inet_server_port() as port`,
      );
      if (!row) throw new Error(`${role}: no identity row`);
      return {
        systemIdentifier: row.system_identifier,
        checkpointTimeline: row.checkpoint_timeline,
        walTimeline: row.wal_file === null ? undefined : parseInt(row.wal_file.slice(0, 8), 16),
        inRecovery: row.in_recovery,
        startedAt: row.started_at,
        port: row.port,
      };
    },
    query,
    log(role, lines = 20) {
      return servers[role].logLines.slice(-lines).join('\n');
    },
    stop,
  };
}

/** What {@link describeReplication} gives its body. */
export interface ReplicationPerTest {
  /** Starts a primary and standby for the current test; stopped (and its folder removed) after the test, pass or fail. */
  start(options?: ReplicationOptions): Promise<ReplicatedPostgres>;
}

/**
 * `describe` for failover tests. The body's `start()` gives a test its own primary and standby and stops them
 * after that test, whatever happened. When the PostgreSQL server binaries are missing: with `CI=true` the block
 * fails with the reason; elsewhere it is skipped with a one-line hint on how to enable it.
 */
export function describeReplication(title: string, body: (replication: ReplicationPerTest) => void): void {
  const problem = replicationProblem();
  if (problem) {
    const placeholder = { start: () => Promise.reject(new Error(problem)) };
    const skipping = 'primary/standby tests';
    describeMissingPeer({ needs: 'PostgreSQL server binaries', skipping, problem, placeholder }, title, body);
    return;
  }
  // stops of the current test's pairs, registered before each starts: a start the test's timeout cut short is stopped too
  const stops: (() => Promise<void>)[] = [];
  describe(title, () => {
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
    });
    body({ start: (options) => launch(options ?? {}, (stop) => stops.push(stop)) });
  });
}
