/**
 * A real MariaDB primary with an asynchronous replica of its own, for failover tests (issue #40), the MariaDB
 * counterpart of replication.ts. Both servers run from the machine's binaries (`mariadbd`, `mariadb-install-db`;
 * `HILO_MARIADB_BINDIR` names another folder) in one temporary folder, on free loopback ports, with every setting
 * on the command line (`--no-defaults`: the machine's my.cnf and its server on 3306 are never read or touched).
 * The primary writes a binary log (`server_id` 1); the replica (`server_id` 2, read-only) follows it with GTID
 * replication (`MASTER_USE_GTID=slave_pos`). A test holds the replica back (`STOP SLAVE`) so that it misses what
 * follows, kills the primary, promotes the replica and moves the application's address to it.
 *
 * How the servers run: each `mariadbd` is one process (threads, no children) and a direct child of this one, so
 * SIGKILL takes the whole server down at once, like a crashed host, and this process sees it exit. Where util-linux's
 * `setpriv` is there, the server also gets SIGKILL when this process dies (`--pdeathsig`), so a Jest worker killed
 * mid-test leaves no server behind. As root, `--user=root` tells mariadbd that running as root is meant (it refuses
 * otherwise); the data folders are this process's own, so no `chown` and no other OS user is needed.
 *
 * One `mariadb-install-db` per test file makes a template data folder (a few seconds; removed after the file, or at
 * exit); each pair copies it twice, so primary and replica start from the same system tables and the primary's binary
 * log starts empty.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort, runProgram } from './embedded-postgres.ts';
import { collectLines } from './isolated-process.ts';
import { describeMissingPeer } from './missing-peer.ts';
import { startForwarder, type Forwarder } from './forwarder.ts';

/** How to get the binaries; part of every "cannot run" message. */
const ENABLE =
  'install the MariaDB server (Debian: apt-get install mariadb-server) or set HILO_MARIADB_BINDIR to the folder ' +
  'with mariadbd and mariadb-install-db';

/** The database the pair's URLs name, created on the primary and replicated. */
export const MARIADB_REPLICATION_DATABASE = 'hilo';

/** Which server. */
export type MariadbRole = 'primary' | 'replica';

/** A running primary and replica, from {@link startReplicatedMariadb}. */
export interface ReplicatedMariadb {
  /**
   * The application's URL (`mysql://hilo:…@127.0.0.1:PORT/hilo`, a user with every privilege): a forwarder to the
   * current primary, moved by {@link switchApplicationTo}. Give this to the code under test.
   */
  readonly url: string;
  /** Straight to the primary, bypassing the forwarder: for the test's own checks. */
  readonly primaryUrl: string;
  /** Straight to the replica, bypassing the forwarder: for the test's own checks. */
  readonly replicaUrl: string;
  /** Which server the application's URL leads to now. */
  readonly applicationTarget: MariadbRole;
  /** `@@server_id` of each server (what hilo reads as the server's identity): 1 and 2. */
  readonly serverIds: Readonly<Record<MariadbRole, number>>;
  /**
   * Resolves once the replica has applied everything the primary had written when this was called (its
   * `gtid_binlog_pos`, waited for with `MASTER_GTID_WAIT` on the replica); rejects after `timeoutMs` (default
   * 20 s), saying where each server is. Needs a live primary and running replication.
   */
  waitForReplica(timeoutMs?: number): Promise<void>;
  /**
   * Holds the replica back: `STOP SLAVE` (both threads), so it receives and applies nothing the primary writes
   * afterwards, as a replica that lagged when the primary died. Resolves with the replica's `gtid_slave_pos`.
   */
  holdBack(): Promise<string>;
  /** Ends {@link holdBack}: `START SLAVE`; the replica catches up from where it stopped. */
  resume(): Promise<void>;
  /**
   * Kills the primary with SIGKILL, as a crashed host: nothing is flushed or sent afterwards. Resolves when the
   * process is gone; connections to it (the application's included) break.
   */
  stopPrimary(): Promise<void>;
  /**
   * Promotes the replica as a failover manager does: `STOP SLAVE`, `RESET SLAVE ALL`, `SET GLOBAL read_only=0`.
   * The application's URL does not move: call {@link switchApplicationTo}.
   */
  promoteReplica(): Promise<void>;
  /**
   * Points the application's URL at `role`: live connections through it are reset (as when a virtual IP or a DNS
   * name moves), new ones reach `role`.
   */
  switchApplicationTo(role: MariadbRole): void;
  /** Runs one statement on `role` directly (a new connection each time) and returns its rows. */
  query<Row extends Record<string, unknown>>(role: MariadbRole, sql: string, params?: unknown[]): Promise<Row[]>;
  /** The last lines either server wrote to its log, for failure messages. */
  log(role: MariadbRole, lines?: number): string;
  /**
   * Stops both servers (SIGKILL: the data is thrown away) and the forwarder, and removes the temporary folder.
   * Safe to call more than once, and after any failure; {@link describeMariadbReplication}'s `start()` calls it
   * after each test.
   */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// binaries

/** The machine's MariaDB server binaries (shared with galera.ts). */
export interface Binaries {
  readonly mariadbd: string;
  readonly installDb: string;
  /** util-linux's setpriv, for `--pdeathsig`; undefined where it is missing or too old. */
  readonly setpriv: string | undefined;
}

let binaries: Binaries | { problem: string } | undefined;

/** The first folder of `dirs` holding `name`. */
function findIn(dirs: readonly string[], names: readonly string[]): string | undefined {
  for (const dir of dirs) for (const name of names) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/** The MariaDB server binaries, or why they are missing (shared with galera.ts). */
export function findBinaries(): Binaries | { problem: string } {
  if (binaries) return binaries;
  const configured = process.env['HILO_MARIADB_BINDIR'];
  const dirs = configured ? [configured] : ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
  // mariadbd since 10.5; mysqld (and mysql_install_db) before, and in some packages still
  const mariadbd = findIn(dirs, ['mariadbd', 'mysqld']);
  const installDb = findIn(dirs, ['mariadb-install-db', 'mysql_install_db']);
  let setpriv: string | undefined = findIn(['/usr/bin', '/bin'], ['setpriv']);
  if (setpriv) {
    try {
      execFileSync(setpriv, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
    } catch {
      setpriv = undefined;
    }
  }
  if (!mariadbd || !installDb) {
    const missing = [mariadbd ? undefined : 'mariadbd', installDb ? undefined : 'mariadb-install-db'].filter(Boolean);
    binaries = { problem: `no ${missing.join(' or ')} in ${dirs.join(', ')}; ${ENABLE}` };
  } else binaries = { mariadbd, installDb, setpriv };
  return binaries;
}

/**
 * Why a MariaDB primary with a replica cannot be started here, or `undefined` when it can: the server binaries
 * (`mariadbd`, `mariadb-install-db` in /usr/sbin, /usr/bin, or `HILO_MARIADB_BINDIR`) are missing.
 */
export function mariadbReplicationProblem(): string | undefined {
  const found = findBinaries();
  return 'problem' in found ? found.problem : undefined;
}

/** `--user=root` as root (mariadbd refuses root otherwise); nothing for another user, who runs it as themself. */
export function userFlag(): string[] {
  return process.getuid?.() === 0 ? ['--user=root'] : [];
}

/** Runs a short-lived program; rejects with its last output lines when it fails. */
export async function run(program: string, args: readonly string[], cwd: string): Promise<string> {
  const { code, output } = await runProgram(program, args, cwd);
  if (code === 0) return output;
  const tail = output.trim().split('\n').slice(-3).join(' | ');
  throw new Error(`${program.split('/').pop()} exited with ${code}: ${tail}`);
}

/** Settings both servers share: small, fast, loopback only, nothing from the machine's configuration. */
export const SMALL = [
  '--bind-address=127.0.0.1',
  '--skip-name-resolve',
  '--innodb-buffer-pool-size=32M',
  '--innodb-log-file-size=8M',
  '--innodb-flush-log-at-trx-commit=2',
  '--sync-binlog=0',
  '--max-connections=100',
  '--performance-schema=OFF',
];

// ---------------------------------------------------------------------------------------------------------------
// the template data folder, one per process

let template: { dir: string; data: Promise<string> } | undefined;

/** A data folder made by mariadb-install-db, copied for each server; removed when the process exits. */
export function templateData(bins: Binaries): Promise<string> {
  if (template === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'hilo-mariadb-template-'));
    const data = join(dir, 'data');
    onExitCleanUp();
    const made = run(
      bins.installDb,
      [
        '--no-defaults',
        `--datadir=${data}`,
        ...userFlag(),
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...SMALL,
      ],
      dir,
    ).then(() => data);
    template = { dir, data: made };
    made.catch(() => {
      rmSync(dir, { recursive: true, force: true });
      template = undefined;
    });
  }
  return template.data;
}

/**
 * Removes the template data folder (after a test file: Jest's sandboxed `process` does not pass the real exit event
 * on, so the exit hook alone would leave one folder per test file in the temporary folder).
 */
export async function removeTemplate(): Promise<void> {
  const current = template;
  if (current === undefined) return;
  template = undefined;
  await current.data.catch(() => undefined);
  rmSync(current.dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------------------
// one server

/** One running mariadbd (shared with galera.ts). */
export interface Server1 {
  readonly role: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly logLines: string[];
  readonly exited: Promise<void>;
}

async function startServer(
  bins: Binaries,
  role: MariadbRole,
  dir: string,
  serverId: number,
  initFile: string,
  extra: readonly string[],
): Promise<Server1> {
  const port = await freePort();
  return await spawnMariadbd(bins, role, dir, port, [
    `--server-id=${serverId}`,
    `--log-bin=${join(dir, 'binlog')}`,
    `--relay-log=${join(dir, 'relay')}`,
    `--init-file=${initFile}`,
    ...extra,
  ]);
}

/**
 * Starts `mariadbd --no-defaults` on the data folder `dir`/data, listening on `port` (loopback), with {@link SMALL}
 * and `args`; resolves once it is ready for connections (60 s at most, or `readyMs`). `user`: the OS user flag
 * (default {@link userFlag}). Shared with galera.ts.
 */
export async function spawnMariadbd(
  bins: Binaries,
  role: string,
  dir: string,
  port: number,
  args: readonly string[],
  options: { readonly user?: readonly string[]; readonly readyMs?: number } = {},
): Promise<Server1> {
  const readyMs = options.readyMs ?? 60_000;
  const all = [
    '--no-defaults',
    `--datadir=${join(dir, 'data')}`,
    ...(options.user ?? userFlag()),
    `--port=${port}`,
    `--socket=${join(dir, 'mariadbd.sock')}`,
    `--pid-file=${join(dir, 'mariadbd.pid')}`,
    `--tmpdir=${dir}`,
    ...SMALL,
    ...args,
  ];
  const child = bins.setpriv
    ? spawn(bins.setpriv, ['--pdeathsig', 'KILL', '--', bins.mariadbd, ...all], {
        cwd: dir,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
    : spawn(bins.mariadbd, all, {
        cwd: dir,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
  const logLines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const server = { role, port, child, logLines, exited };
  await new Promise<void>((resolve, reject) => {
    collectLines(child.stderr, logLines, (line) => {
      if (line.includes('ready for connections')) resolve();
    });
    child.once('error', reject);
    void exited.then(() =>
      reject(
        new Error(`${role} mariadbd exited (${child.exitCode ?? child.signalCode}): ${logLines.slice(-3).join(' | ')}`),
      ),
    );
    setTimeout(
      () =>
        reject(new Error(`${role} mariadbd not ready after ${readyMs / 1000} s: ${logLines.slice(-3).join(' | ')}`)),
      readyMs,
    ).unref();
  }).catch(async (error: unknown) => {
    await killServer(server);
    throw error;
  });
  return server;
}

/** SIGKILL to the server (setpriv has exec'd into it: the child is mariadbd); resolves when it is gone. */
export async function killServer(server: Server1): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}

// ---------------------------------------------------------------------------------------------------------------
// the pair

/** Pairs not stopped yet: killed and removed when the process exits without stopping them. */
export const live = new Set<{ servers: Server1[]; dir: string }>();
let exitHook = false;

export function onExitCleanUp(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const pair of live) {
      for (const server of pair.servers) server.child.kill('SIGKILL');
      rmSync(pair.dir, { recursive: true, force: true });
    }
    if (template) rmSync(template.dir, { recursive: true, force: true });
  });
}

/**
 * Starts a primary and a replica (see the module's comment for how they run) and the forwarder in front of them; a
 * few seconds. Throws with the reason when the binaries are missing or a server fails to start, having cleaned up
 * what it started. Prefer {@link describeMariadbReplication}'s `start()`, which also stops the pair after the test.
 */
export async function startReplicatedMariadb(): Promise<ReplicatedMariadb> {
  return await launch(() => undefined);
}

async function launch(register: (stop: () => Promise<void>) => void): Promise<ReplicatedMariadb> {
  const bins = findBinaries();
  if ('problem' in bins) throw new Error(bins.problem);
  const dir = mkdtempSync(join(tmpdir(), 'hilo-mariadb-replication-'));
  const pair = { servers: [] as Server1[], dir };
  live.add(pair);
  onExitCleanUp();
  const password = randomBytes(12).toString('hex');
  const replicationPassword = randomBytes(12).toString('hex');
  let forwarder: Forwarder | undefined;
  let primary: Server1 | undefined;
  let replica: Server1 | undefined;
  let stopped = false;

  const cleanUp = async (): Promise<void> => {
    await Promise.all(pair.servers.map(killServer));
    await forwarder?.close();
    rmSync(dir, { recursive: true, force: true });
    live.delete(pair);
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await cleanUp();
  };
  const stillWanted = (): void => {
    if (stopped) throw new Error('stopped while starting');
  };
  const urlOf = (port: number) => `mysql://hilo:${password}@127.0.0.1:${port}/${MARIADB_REPLICATION_DATABASE}`;

  async function connectTo(server: Server1, database = true) {
    return await mysql.createConnection({
      host: '127.0.0.1',
      port: server.port,
      user: 'hilo',
      password,
      connectTimeout: 5000,
      ...(database ? { database: MARIADB_REPLICATION_DATABASE } : {}),
    });
  }

  register(stop);
  try {
    const data = await templateData(bins);
    stillWanted();
    // run at every start, outside the binary log: the replica must not receive the primary's copy of these
    const initFile = join(dir, 'init.sql');
    writeFileSync(
      initFile,
      [
        'SET SESSION sql_log_bin = 0;',
        `CREATE USER IF NOT EXISTS 'hilo'@'127.0.0.1' IDENTIFIED BY '${password}';`,
        "GRANT ALL PRIVILEGES ON *.* TO 'hilo'@'127.0.0.1' WITH GRANT OPTION;",
        `CREATE USER IF NOT EXISTS 'replicator'@'127.0.0.1' IDENTIFIED BY '${replicationPassword}';`,
        "GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'127.0.0.1';",
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const primaryDir = join(dir, 'primary');
    const replicaDir = join(dir, 'replica');
    cpSync(data, join(primaryDir, 'data'), { recursive: true });
    cpSync(data, join(replicaDir, 'data'), { recursive: true });
    [primary, replica] = await Promise.all([
      startServer(bins, 'primary', primaryDir, 1, initFile, []).then((s) => (pair.servers.push(s), s)),
      startServer(bins, 'replica', replicaDir, 2, initFile, ['--read-only', '--skip-slave-start']).then(
        (s) => (pair.servers.push(s), s),
      ),
    ]);
    stillWanted();
    const admin = await connectTo(replica, false);
    try {
      await admin.query(
        `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, MASTER_USER='replicator', ` +
          `MASTER_PASSWORD='${replicationPassword}', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
      );
      await admin.query('START SLAVE');
    } finally {
      await admin.end();
    }
    stillWanted();
    const onPrimary = await connectTo(primary, false);
    let position: string;
    try {
      await onPrimary.query(`CREATE DATABASE ${MARIADB_REPLICATION_DATABASE}`);
      const [rows] = await onPrimary.query('select @@gtid_binlog_pos as pos');
      position = String((rows as { pos: string }[])[0]!.pos);
    } finally {
      await onPrimary.end();
    }
    stillWanted();
    // ready when the replica has the database too: the URLs name it
    const onReplica = await connectTo(replica, false);
    try {
      const [rows] = await onReplica.query('select master_gtid_wait(?, 30) as r', [position]);
      if ((rows as { r: number | null }[])[0]?.r !== 0) {
        throw new Error(`the replica did not replicate CREATE DATABASE (${position}) within 30 s`);
      }
    } finally {
      await onReplica.end();
    }
    stillWanted();
    forwarder = await startForwarder(primary.port);
    stillWanted();
  } catch (error) {
    const logs = [primary, replica].flatMap((server) => server?.logLines.slice(-3) ?? []).join(' | ');
    stopped = true;
    await cleanUp().catch(() => undefined);
    throw new Error(
      `MariaDB primary and replica could not start: ${(error as Error).message}${logs ? ` — ${logs}` : ''}`,
      {
        cause: error,
      },
    );
  }

  const servers: Record<MariadbRole, Server1> = { primary, replica };
  const app = forwarder;
  let applicationTarget: MariadbRole = 'primary';

  async function query<Row extends Record<string, unknown>>(role: MariadbRole, sql: string, params?: unknown[]) {
    const connection = await connectTo(servers[role]);
    try {
      const [rows] = await connection.query(sql, params);
      return rows as Row[];
    } finally {
      await connection.end().catch(() => undefined);
    }
  }

  async function gtidPosition(role: MariadbRole, variable: string): Promise<string> {
    const [row] = await query<{ pos: string }>(role, `select @@${variable} as pos`);
    return row?.pos ?? '';
  }

  const pairApi: ReplicatedMariadb = {
    url: urlOf(app.port),
    primaryUrl: urlOf(primary.port),
    replicaUrl: urlOf(replica.port),
    get applicationTarget() {
      return applicationTarget;
    },
    serverIds: { primary: 1, replica: 2 },
    async waitForReplica(timeoutMs = 20_000) {
      const position = await gtidPosition('primary', 'gtid_binlog_pos');
      if (position === '') return;
      const [row] = await query<{ r: number | null }>('replica', 'select master_gtid_wait(?, ?) as r', [
        position,
        timeoutMs / 1000,
      ]);
      if (row?.r !== 0) {
        const at = await gtidPosition('replica', 'gtid_slave_pos').catch(() => 'unknown');
        const status = await query<Record<string, unknown>>('replica', 'show slave status').catch(() => []);
        const error = status[0]
          ? `${String(status[0]['Last_IO_Error'])} ${String(status[0]['Last_SQL_Error'])}`.trim()
          : '';
        throw new Error(
          `the replica did not apply ${position} within ${timeoutMs} ms: it is at ${at || 'nothing'}` +
            (error ? ` (${error})` : ''),
        );
      }
    },
    async holdBack() {
      await query('replica', 'STOP SLAVE');
      return await gtidPosition('replica', 'gtid_slave_pos');
    },
    async resume() {
      await query('replica', 'START SLAVE');
    },
    async stopPrimary() {
      await killServer(servers.primary);
    },
    async promoteReplica() {
      await query('replica', 'STOP SLAVE');
      await query('replica', 'RESET SLAVE ALL');
      await query('replica', 'SET GLOBAL read_only = 0');
    },
    switchApplicationTo(role) {
      applicationTarget = role;
      app.switchTo(servers[role].port);
    },
    query,
    log(role, lines = 20) {
      return servers[role].logLines.slice(-lines).join('\n');
    },
    stop,
  };
  return pairApi;
}

/** What {@link describeMariadbReplication} gives its body. */
export interface MariadbReplicationPerTest {
  /** Starts a primary and replica for the current test; stopped (and its folder removed) after the test, pass or fail. */
  start(): Promise<ReplicatedMariadb>;
}

/**
 * `describe` for MariaDB failover tests. The body's `start()` gives a test its own primary and replica and stops
 * them after that test, whatever happened. When the MariaDB server binaries are missing: with `CI=true` the block
 * fails with the reason; elsewhere it is skipped with a one-line hint on how to enable it.
 */
export function describeMariadbReplication(
  title: string,
  body: (replication: MariadbReplicationPerTest) => void,
): void {
  const problem = mariadbReplicationProblem();
  if (problem) {
    const placeholder = { start: () => Promise.reject(new Error(problem)) };
    const skipping = 'MariaDB primary/replica tests';
    describeMissingPeer({ needs: 'MariaDB server binaries', skipping, problem, placeholder }, title, body);
    return;
  }
  // stops of the current test's pairs, registered before each starts: a start the test's timeout cut short is stopped too
  const stops: (() => Promise<void>)[] = [];
  describe(title, () => {
    afterEach(async () => {
      for (const stop of stops.splice(0)) await stop();
    });
    afterAll(removeTemplate);
    body({ start: () => launch((stop) => stops.push(stop)) });
  });
}
