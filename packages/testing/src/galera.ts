/**
 * A real three-node MariaDB Galera Cluster on loopback (issue #47), started as mariadb-replication.ts starts its
 * servers: the machine's `mariadbd` with `--no-defaults` in one temporary folder, on free loopback ports, every
 * setting on the command line, never the machine's server on 3306. Each node loads the machine's Galera provider
 * (`libgalera_smm.so` of Debian's `galera-4`, or `HILO_GALERA_PROVIDER`), listens for group communication, IST and
 * SST on loopback ports of its own, and runs with what Galera requires (`binlog_format=ROW`,
 * `innodb_autoinc_lock_mode=2`). The first node bootstraps the cluster (`--wsrep-new-cluster`); the other two join
 * it by state snapshot transfer (`wsrep_sst_method=rsync`, the machine's `rsync`). The cluster is ready when every
 * node is Synced in a Primary Component of three.
 *
 * As root, the nodes run as the `mysql` OS user (`--user=mysql`, the folder theirs): the rsync daemon an SST starts
 * on the joiner would otherwise drop to `nobody` and could not write the data folder. A Jest worker killed
 * mid-file may leave nodes behind only as root (a setuid server loses its parent-death signal); the exit hook
 * kills them otherwise.
 *
 * The application's URLs: one per node, and {@link GaleraCluster.url}, a round-robin load balancer over the nodes
 * that are up (as HAProxy in front of a cluster, with a health check that sees a killed node but not one that left
 * the Primary Component).
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from './embedded-postgres.ts';
import { describeMissingPeer } from './missing-peer.ts';
import {
  findBinaries,
  killServer,
  live,
  onExitCleanUp,
  removeTemplate,
  SMALL,
  spawnMariadbd,
  templateData,
  type Binaries,
  type Server1,
} from './mariadb-replication.ts';

/** How to get what the cluster needs; part of every "cannot run" message. */
const ENABLE =
  'install MariaDB with Galera (Debian: apt-get install mariadb-server galera-4 rsync), or set HILO_MARIADB_BINDIR ' +
  'and HILO_GALERA_PROVIDER (the path of libgalera_smm.so)';

/** The database the cluster's URLs name. */
export const GALERA_DATABASE = 'hilo';

/** How many nodes the cluster has. */
export const GALERA_NODES = 3;

/** A running three-node cluster, from {@link startGaleraCluster}. */
export interface GaleraCluster {
  /**
   * The load balancer's URL (`mysql://hilo:…@127.0.0.1:PORT/hilo`): each new connection goes to the next node that
   * is up, round robin. A node {@link kill}ed is left out until it is back; an {@link isolate}d one is not.
   */
  readonly url: string;
  /** Straight to node `i` (0, 1, 2). */
  readonly urls: readonly string[];
  /** `@@server_id` of each node: 1, 2, 3 (distinct, as replication between clusters requires). */
  readonly serverIds: readonly number[];
  /** Runs one statement on node `i` (a new connection each time) and returns its rows. */
  query<Row extends Record<string, unknown>>(node: number, sql: string, params?: unknown[]): Promise<Row[]>;
  /** Node `i`'s wsrep status variables (lower-case names without `wsrep_`: `cluster_size`, `cluster_status`, …). */
  status(node: number): Promise<Record<string, string>>;
  /**
   * Cuts node `i` off the group (`gmcast.isolate=1`): it leaves the Primary Component and answers statements on
   * tables with error 1047 until {@link rejoin}. Resolves once it reports non-Primary and the others a cluster of two.
   */
  isolate(node: number): Promise<void>;
  /** Ends {@link isolate}: resolves once every node is Synced in a cluster of three again. */
  rejoin(node: number): Promise<void>;
  /** SIGKILL to node `i` (a crashed host); the balancer leaves it out. Resolves when the process is gone. */
  kill(node: number): Promise<void>;
  /**
   * Starts node `i` again on its data folder (it rejoins by IST, or SST when the others' cache lacks what it
   * missed); resolves once every node is Synced in a cluster of three, and the balancer uses it again.
   */
  restart(node: number): Promise<void>;
  /** Resolves once every node that is up is Synced, in a Primary Component of that many; rejects after `timeoutMs`. */
  waitSynced(timeoutMs?: number): Promise<void>;
  /** The last lines node `i` wrote to its log, for failure messages. */
  log(node: number, lines?: number): string;
  /** Kills every node, closes the balancer, removes the folder. Safe to call more than once. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// what the cluster needs

interface GaleraTools {
  readonly bins: Binaries;
  readonly provider: string;
}

let tools: GaleraTools | { problem: string } | undefined;

function onPath(name: string): string | undefined {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).concat(['/usr/bin', '/usr/sbin', '/bin']);
  return dirs
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

function findProvider(): string | undefined {
  const configured = process.env['HILO_GALERA_PROVIDER'];
  if (configured) return existsSync(configured) ? configured : undefined;
  const known = [
    '/usr/lib/galera/libgalera_smm.so',
    '/usr/lib/libgalera_smm.so',
    '/usr/lib/galera-4/libgalera_smm.so',
    '/usr/lib64/galera-4/libgalera_smm.so',
    '/usr/lib64/galera/libgalera_smm.so',
  ];
  const found = known.find((path) => existsSync(path));
  if (found) return found;
  try {
    const listed = execFileSync('dpkg', ['-L', 'galera-4'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return listed.split('\n').find((line) => line.endsWith('/libgalera_smm.so') && existsSync(line));
  } catch {
    return undefined;
  }
}

function findTools(): GaleraTools | { problem: string } {
  if (tools) return tools;
  const bins = findBinaries();
  const provider = findProvider();
  const missing = [
    'problem' in bins ? bins.problem : undefined,
    provider ? undefined : 'no Galera provider (libgalera_smm.so)',
    onPath('rsync') ? undefined : 'no rsync (the state transfer of a joining node)',
    onPath('wsrep_sst_rsync') ? undefined : 'no wsrep_sst_rsync (MariaDB server scripts)',
  ].filter(Boolean);
  tools =
    missing.length > 0 || 'problem' in bins
      ? { problem: `${missing.join('; ')}; ${ENABLE}` }
      : { bins, provider: provider! };
  return tools;
}

/** Why a Galera cluster cannot be started here, or `undefined` when it can. */
export function galeraProblem(): string | undefined {
  const found = findTools();
  return 'problem' in found ? found.problem : undefined;
}

/** As root: the `mysql` user's ids (the nodes run as it); otherwise undefined (they run as this user). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'mysql'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'mysql'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root, a Galera node needs the `mysql` OS user (Debian: it comes with mariadb-server)');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the balancer

interface Balancer {
  readonly port: number;
  setUp(node: number, up: boolean): void;
  close(): Promise<void>;
}

async function startBalancer(ports: readonly number[]): Promise<Balancer> {
  const up = ports.map(() => true);
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const candidates = ports.map((_, i) => (next + i) % ports.length).filter((i) => up[i]);
    const chosen = candidates[0] ?? next % ports.length;
    next = chosen + 1;
    const upstream = new Socket();
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket
        .on('error', () => undefined)
        .on('close', () => {
          sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    upstream.connect(ports[chosen]!, '127.0.0.1');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('balancer: no TCP address');
  return {
    port: address.port,
    setUp(node, value) {
      up[node] = value;
    },
    async close() {
      for (const socket of [...sockets]) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// the cluster

interface NodePorts {
  readonly client: number;
  readonly group: number;
  readonly ist: number;
  readonly sst: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const run = promisify(execFile);

/**
 * Galera's group timeouts for nodes on one loopback (defaults in brackets): a node that stops answering is suspected
 * after `evs.suspect_timeout` (5 s) and dropped after `evs.inactive_timeout` (15 s); `evs.install_timeout` (7.5 s)
 * bounds agreeing on the new view; a peer dropped may connect again after `gmcast.time_wait` (5 s), and
 * `gmcast.peer_timeout` (3 s) / `evs.join_retrans_period` (1 s) pace reconnecting and joining.
 */
const GROUP_TIMEOUTS = [
  'evs.suspect_timeout=PT1.5S',
  'evs.inactive_timeout=PT3S',
  'evs.keepalive_period=PT0.5S',
  'evs.inactive_check_period=PT0.5S',
  'evs.install_timeout=PT2S',
  'evs.join_retrans_period=PT0.5S',
  'gmcast.peer_timeout=PT1S',
  'gmcast.time_wait=PT1.5S',
];

/**
 * Starts a three-node cluster (see the module's comment); 15–25 s here, most of it the two state transfers. Throws
 * with the reason when something is missing or a node fails to start, having cleaned up what it started. Prefer
 * {@link describeGalera}, which starts one cluster per file and stops it afterwards.
 */
export async function startGaleraCluster(): Promise<GaleraCluster> {
  const found = findTools();
  if ('problem' in found) throw new Error(found.problem);
  const { bins, provider } = found;
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'hilo-galera-'));
  const group = { servers: [] as Server1[], dir };
  live.add(group);
  onExitCleanUp();
  const password = randomBytes(12).toString('hex');
  const clusterName = `hilo-${randomBytes(4).toString('hex')}`;
  const ports: NodePorts[] = [];
  for (let i = 0; i < GALERA_NODES; i++) {
    ports.push({ client: await freePort(), group: await freePort(), ist: await freePort(), sst: await freePort() });
  }
  const nodes: (Server1 | undefined)[] = ports.map(() => undefined);
  let balancer: Balancer | undefined;
  let stopped = false;
  const address = `gcomm://${ports.map((p) => `127.0.0.1:${p.group}`).join(',')}`;
  const nodeDir = (i: number) => join(dir, `node${i + 1}`);

  /** The arguments every run of node `i`'s server shares, its own start and a `--wsrep-recover` run alike. */
  const nodeArgs = (i: number) => {
    const p = ports[i]!;
    const options = [
      `base_port=${p.group}`,
      `gmcast.listen_addr=tcp://127.0.0.1:${p.group}`,
      `ist.recv_addr=127.0.0.1:${p.ist}`,
      'gcache.size=64M',
      // loopback answers in microseconds: a node cut off (or killed) leaves the Primary Component in about 2 s, not
      // the default 15, and one coming back is let in within a second or two instead of 5–10
      ...GROUP_TIMEOUTS,
    ].join(';');
    return [
      `--server-id=${i + 1}`,
      '--binlog-format=ROW',
      '--innodb-autoinc-lock-mode=2',
      '--default-storage-engine=InnoDB',
      '--wsrep-on=ON',
      `--wsrep-provider=${provider}`,
      `--wsrep-cluster-name=${clusterName}`,
      `--wsrep-cluster-address=${address}`,
      `--wsrep-node-address=127.0.0.1:${p.group}`,
      `--wsrep-node-name=node${i + 1}`,
      `--wsrep-provider-options=${options}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${p.sst}`,
    ];
  };

  /**
   * Starts node `i`. `position` (`uuid:seqno`) is where its data stands in the cluster's history, which a server
   * started by hand does not find by itself (mysqld_safe runs `--wsrep-recover` for it): with it, a joiner whose
   * data the cluster still has in its cache catches up by IST (the write sets it missed) instead of a full SST.
   */
  async function startNode(i: number, bootstrap: boolean, position?: string): Promise<Server1> {
    const p = ports[i]!;
    const server = await spawnMariadbd(
      bins,
      `node${i + 1}`,
      nodeDir(i),
      p.client,
      [
        ...nodeArgs(i),
        ...(position === undefined ? [] : [`--wsrep-start-position=${position}`]),
        ...(bootstrap ? ['--wsrep-new-cluster'] : []),
      ],
      { user: user === undefined ? [] : ['--user=mysql'], readyMs: 90_000 },
    );
    nodes[i] = server;
    group.servers.push(server);
    return server;
  }

  /** Where node `i`'s data stands after a crash: `mariadbd --wsrep-recover` reads it from InnoDB and exits. */
  async function recoverPosition(i: number): Promise<string | undefined> {
    const dataDir = join(nodeDir(i), 'data');
    const { stderr } = await run(
      bins.mariadbd,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        ...(user === undefined ? [] : ['--user=mysql']),
        '--skip-networking',
        `--socket=${join(nodeDir(i), 'recover.sock')}`,
        `--pid-file=${join(nodeDir(i), 'recover.pid')}`,
        `--tmpdir=${nodeDir(i)}`,
        ...SMALL,
        ...nodeArgs(i),
        '--wsrep-recover',
      ],
      { cwd: nodeDir(i), encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 },
    ).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? '' }));
    return /Recovered position: ([0-9a-f-]{36}:-?\d+)/.exec(stderr)?.[1];
  }

  const urlOf = (port: number) => `mysql://hilo:${password}@127.0.0.1:${port}/${GALERA_DATABASE}`;

  async function connectTo(i: number, as: 'root' | 'hilo' = 'hilo') {
    return await mysql.createConnection({
      host: '127.0.0.1',
      port: ports[i]!.client,
      user: as,
      ...(as === 'hilo' ? { password, database: GALERA_DATABASE } : {}),
      connectTimeout: 5000,
    });
  }

  async function query<Row extends Record<string, unknown>>(
    i: number,
    sql: string,
    params?: unknown[],
    as: 'root' | 'hilo' = 'hilo',
  ) {
    const connection = await connectTo(i, as);
    try {
      const [rows] = await connection.query(sql, params);
      return rows as Row[];
    } finally {
      await connection.end().catch(() => undefined);
    }
  }

  async function status(i: number): Promise<Record<string, string>> {
    // as root: the application's user is made once the cluster is up
    const rows = await query<{ Variable_name: string; Value: string }>(
      i,
      "show global status like 'wsrep\\_%'",
      undefined,
      'root',
    );
    return Object.fromEntries(rows.map((row) => [row.Variable_name.toLowerCase().slice(6), String(row.Value)]));
  }

  const isUp = (i: number) => {
    const node = nodes[i];
    return node !== undefined && node.child.exitCode === null && node.child.signalCode === null;
  };

  async function until(what: string, timeoutMs: number, ok: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        if (await ok()) return;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline) {
        const states = await Promise.all(
          ports.map((_, i) =>
            isUp(i)
              ? status(i).then<string, string>(
                  (s) => `node${i + 1}: ${s['local_state_comment']} ${s['cluster_status']} of ${s['cluster_size']}`,
                  (error: Error) => `node${i + 1}: ${error.message}`,
                )
              : Promise.resolve(`node${i + 1}: down`),
          ),
        );
        throw new Error(
          `Galera: ${what} not within ${timeoutMs} ms (${states.join('; ')})` +
            (last instanceof Error ? `: ${last.message}` : ''),
        );
      }
      await sleep(200);
    }
  }

  async function waitSynced(timeoutMs = 60_000): Promise<void> {
    await until('every node Synced', timeoutMs, async () => {
      const up = ports.map((_, i) => i).filter(isUp);
      const all = await Promise.all(up.map(status));
      return all.every(
        (s) =>
          s['local_state_comment'] === 'Synced' &&
          s['cluster_status'] === 'Primary' &&
          s['ready'] === 'ON' &&
          Number(s['cluster_size']) === up.length,
      );
    });
  }

  const cleanUp = async () => {
    await Promise.all(group.servers.map(killServer));
    await balancer?.close();
    rmSync(dir, { recursive: true, force: true });
    live.delete(group);
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await cleanUp();
  };

  try {
    const data = await templateData(bins);
    for (let i = 0; i < GALERA_NODES; i++) cpSync(data, join(nodeDir(i), 'data'), { recursive: true });
    if (user !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
    await startNode(0, true);
    // the template's root has no password from loopback; the application's user is made once, on the first
    // node, and reaches the others with their state transfer
    const root = await connectTo(0, 'root');
    try {
      await root.query(`CREATE USER 'hilo'@'127.0.0.1' IDENTIFIED BY '${password}'`);
      await root.query("GRANT ALL PRIVILEGES ON *.* TO 'hilo'@'127.0.0.1' WITH GRANT OPTION");
      await root.query(`CREATE DATABASE ${GALERA_DATABASE}`);
    } finally {
      await root.end();
    }
    // one joiner at a time, each Synced before the next starts: two joining together may both ask the first node
    // for a state transfer, and on a busy machine (two busy loops) that donor was seen stuck in Donor/Desynced for
    // 90 s after the second had taken the other joiner as its donor instead (2 runs of 5)
    await startNode(1, false);
    await waitSynced(90_000);
    await startNode(2, false);
    await waitSynced(90_000);
    balancer = await startBalancer(ports.map((p) => p.client));
  } catch (error) {
    const logs = nodes.flatMap((node) => node?.logLines.slice(-3) ?? []).join(' | ');
    stopped = true;
    await cleanUp().catch(() => undefined);
    throw new Error(`Galera cluster could not start: ${(error as Error).message}${logs ? ` — ${logs}` : ''}`, {
      cause: error,
    });
  }
  const lb = balancer;

  const setIsolated = (i: number, on: boolean) =>
    query(i, `SET GLOBAL wsrep_provider_options = 'gmcast.isolate=${on ? 1 : 0}'`);

  return {
    url: urlOf(lb.port),
    urls: ports.map((p) => urlOf(p.client)),
    serverIds: ports.map((_, i) => i + 1),
    query: (i, sql, params) => query(i, sql, params),
    status,
    async isolate(i) {
      await setIsolated(i, true);
      await until(`node${i + 1} out of the Primary Component`, 30_000, async () => {
        const s = await status(i);
        const others = await Promise.all(
          ports
            .map((_, j) => j)
            .filter((j) => j !== i && isUp(j))
            .map(status),
        );
        return s['cluster_status'] !== 'Primary' && others.every((o) => Number(o['cluster_size']) === others.length);
      });
    },
    async rejoin(i) {
      await setIsolated(i, false);
      await waitSynced();
    },
    async kill(i) {
      lb.setUp(i, false);
      const node = nodes[i];
      if (node) await killServer(node);
    },
    async restart(i) {
      if (isUp(i)) throw new Error(`node${i + 1} is running`);
      await startNode(i, false, await recoverPosition(i));
      await waitSynced(90_000);
      lb.setUp(i, true);
    },
    waitSynced,
    log(i, lines = 20) {
      return nodes[i]?.logLines.slice(-lines).join('\n') ?? '';
    },
    stop,
  };
}

/** What {@link describeGalera} gives its body. */
export interface GaleraPerFile {
  /** The file's cluster, started before its first test (call it inside a test or hook). */
  cluster(): GaleraCluster;
}

/**
 * `describe` for tests on a real Galera cluster: one cluster per block, started before its first test (about 20 s)
 * and stopped after its last. Tests share it: each works in tables and segments of its own, and a test that kills,
 * isolates or restarts a node leaves every node Synced again. When the MariaDB server, the Galera provider or rsync
 * is missing: with `CI=true` the block fails with the reason; elsewhere it is skipped with a one-line hint.
 */
export function describeGalera(title: string, body: (galera: GaleraPerFile) => void): void {
  const problem = galeraProblem();
  if (problem) {
    const placeholder = {
      cluster: () => {
        throw new Error(problem);
      },
    };
    describeMissingPeer(
      { needs: 'MariaDB with Galera', skipping: 'Galera cluster tests', problem, placeholder },
      title,
      body,
    );
    return;
  }
  let cluster: GaleraCluster | undefined;
  describe(title, () => {
    beforeAll(async () => {
      cluster = await startGaleraCluster();
    }, 150_000);
    afterAll(async () => {
      await cluster?.stop();
      await removeTemplate();
    }, 30_000);
    body({
      cluster: () => {
        if (cluster === undefined) throw new Error('the Galera cluster did not start (see the error of beforeAll)');
        return cluster;
      },
    });
  });
}
