/**
 * A real two-node Patroni cluster with one etcd on loopback (issue #47, item 2): Debian's `etcd` (3.4, its v3 API)
 * and `patroni` (3.0), PostgreSQL from the machine's binaries (`pg_config --bindir`, or `HILO_PG_BINDIR`), all in
 * one temporary folder on free loopback ports; the machine's own etcd, Patroni or PostgreSQL are never touched.
 * Short `ttl`, `loop_wait` and `retry_timeout` make a switchover take about a second and a failover a few.
 *
 * How the nodes run: as replication.ts runs its servers. As root, each Patroni runs as the `postgres` OS user in
 * PID, IPC and mount namespaces of its own (`unshare --pid --ipc --fork --mount-proc`, then `setpriv`), under a small
 * reaper that is the namespace's PID 1: a SIGKILL to it takes Patroni and PostgreSQL down at once, like a crashed
 * host. Where namespaces are not allowed, Patroni runs as a plain child in a process group of
 * its own, and a kill also signals the postmaster named in `postmaster.pid`.
 *
 * Each node's `connect_address` (what the other node streams from, and what Patroni advertises) is a fault proxy to
 * its PostgreSQL, so a test can make the replica lag; the application's URL is a libpq host list of both nodes'
 * own ports with `target_session_attrs=read-write`, so the application follows the leader as it moves.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './embedded-postgres.ts';
import { describeMissingPeer } from './missing-peer.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
import { killIsolated, killNow, spawnIsolated, type IsolatedProcess } from './isolated-process.ts';
import { serverUser } from './replication.ts';

/** How to get what the cluster needs; part of every "cannot run" message. */
const ENABLE =
  'install Patroni, etcd and PostgreSQL (Debian: apt-get install patroni etcd-server postgresql), or set ' +
  'HILO_PG_BINDIR to the PostgreSQL bin/ folder';

/** The PostgreSQL programs Patroni runs. */
const PROGRAMS = ['initdb', 'postgres', 'pg_ctl', 'pg_rewind', 'pg_basebackup', 'pg_controldata'] as const;

/** The nodes' names, by index. */
export const PATRONI_NODES = ['node0', 'node1'] as const;

/** How the cluster starts: Patroni's `bootstrap.dcs` settings that the tests vary. */
export interface PatroniOptions {
  /** `synchronous_mode`: Patroni keeps one replica synchronous and only promotes it; default true. */
  readonly synchronousMode?: boolean;
  /** `synchronous_mode_strict`: with no synchronous replica, commits wait instead of going asynchronous; default false. */
  readonly synchronousModeStrict?: boolean;
  /** `maximum_lag_on_failover` in bytes: a replica further behind is not promoted; Patroni's default 1 MiB. */
  readonly maximumLagOnFailover?: number;
}

/** A member as Patroni's REST API (`GET /cluster`) lists it. */
export interface PatroniMember {
  readonly name: string;
  /** `leader`, `sync_standby` or `replica`. */
  readonly role: string;
  /** `running`, `streaming`, `starting`, `stopped`, … */
  readonly state: string;
  readonly timeline?: number;
  readonly lag?: number | string;
}

/** A running cluster, from {@link startPatroniCluster}. */
export interface PatroniCluster {
  /**
   * The application's URL: `postgres://postgres:…@127.0.0.1:P0,127.0.0.1:P1/postgres?target_session_attrs=read-write`,
   * both nodes' own ports, so the application reaches the leader wherever it is.
   */
  readonly url: string;
  /** Straight to node `i`'s PostgreSQL. */
  readonly urls: readonly string[];
  /** The cluster's members, asked of the first node whose REST API answers. */
  members(): Promise<PatroniMember[]>;
  /** The index of the node that leads now; rejects when none does. */
  leader(): Promise<number>;
  /**
   * Resolves once one node leads and accepts writes, and the other streams from it (listed as `sync_standby` when
   * synchronous mode is on); rejects after `timeoutMs` (default 60 s) with the members and the logs.
   */
  waitHealthy(timeoutMs?: number): Promise<number>;
  /**
   * `patronictl switchover` to the other node (`--force`); resolves with the new leader's index once it accepts
   * writes (the old leader rejoins as a replica on its own: {@link waitHealthy} waits for it).
   */
  switchover(): Promise<number>;
  /** SIGKILL to node `i`'s Patroni and PostgreSQL at once, like a crashed host; resolves when they are gone. */
  kill(node: number): Promise<void>;
  /** Starts node `i`'s Patroni again on its data folder: it rejoins as a replica (pg_rewind when it must). */
  restart(node: number): Promise<void>;
  /**
   * Changes the cluster's dynamic configuration (`PATCH /config`, as `patronictl edit-config` does), e.g.
   * `{ synchronous_mode: false }`; resolves once the leader's `synchronous_standby_names` shows it took effect.
   */
  configure(settings: Record<string, unknown>): Promise<void>;
  /**
   * Makes replication from node `i` stall (nothing delivered, connections kept open) until {@link heal}: its
   * replica falls behind while it goes on committing.
   */
  stallReplicationFrom(node: number): void;
  /** Ends {@link stallReplicationFrom}: what was held is delivered. */
  heal(): void;
  /** Runs one statement on node `i` (a new connection each time) and returns its rows. */
  query<Row extends Record<string, unknown>>(node: number, sql: string, params?: unknown[]): Promise<Row[]>;
  /** The last lines node `i`'s Patroni (and its PostgreSQL) wrote, for failure messages. */
  log(node: number, lines?: number): string;
  /** Kills both nodes and etcd, closes the proxies, removes the folder. Safe to call more than once. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------------------
// what the cluster needs

interface PatroniTools {
  readonly patroni: string;
  readonly patronictl: string;
  readonly etcd: string;
  readonly bin: string;
}

let tools: PatroniTools | { problem: string } | undefined;

function firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

function findTools(): PatroniTools | { problem: string } {
  if (tools) return tools;
  const patroni = firstExisting(['/usr/bin/patroni', '/usr/local/bin/patroni']);
  const patronictl = firstExisting(['/usr/bin/patronictl', '/usr/local/bin/patronictl']);
  const etcd = firstExisting(['/usr/bin/etcd', '/usr/local/bin/etcd']);
  const candidates: string[] = [];
  if (process.env['HILO_PG_BINDIR']) candidates.push(process.env['HILO_PG_BINDIR']);
  else {
    try {
      candidates.push(
        execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
      );
    } catch {
      // no pg_config: the problem names it
    }
  }
  const bin = candidates.find((dir) => PROGRAMS.every((program) => existsSync(join(dir, program))));
  const missing = [
    patroni && patronictl ? undefined : 'no patroni/patronictl in /usr/bin',
    etcd ? undefined : 'no etcd in /usr/bin',
    bin
      ? undefined
      : `no PostgreSQL server binaries (${PROGRAMS.join(', ')}) in ${candidates.join(', ') || 'pg_config --bindir'}`,
  ].filter(Boolean);
  tools =
    missing.length > 0
      ? { problem: `${missing.join('; ')}; ${ENABLE}` }
      : { patroni: patroni!, patronictl: patronictl!, etcd: etcd!, bin: bin! };
  return tools;
}

/** Why a Patroni cluster cannot be started here, or `undefined` when it can. */
export function patroniProblem(): string | undefined {
  const found = findTools();
  return 'problem' in found ? found.problem : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// processes

type Process1 = IsolatedProcess;

/** SIGKILL to `p` (its namespace, or its group); resolves when it is gone. */
async function killProcess(p: Process1, alsoPidFile?: string): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  if (p.ownGroup && alsoPidFile !== undefined && existsSync(alsoPidFile)) {
    // outside a namespace Patroni starts the postmaster in a session of its own: kill it too
    const postmaster = Number(readFileSync(alsoPidFile, 'utf8').split('\n')[0]);
    if (postmaster > 0) killNow({ pid: postmaster, ownGroup: true });
  }
  await killIsolated(p);
}

/** Clusters not stopped yet: killed and removed when the process exits without stopping them. */
const live = new Set<{ processes: () => Process1[]; dir: string }>();
let exitHook = false;

function onExitCleanUp(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const cluster of live) {
      for (const p of cluster.processes()) {
        killNow(p);
      }
      rmSync(cluster.dir, { recursive: true, force: true });
    }
  });
}

/**
 * The namespace's init: runs Patroni as its child and reaps every process that ends in the namespace at once, so
 * Patroni runs as on a host (as PID 1 it would switch to an init mode of its own). The namespace also mounts its own
 * /proc (`--mount-proc`): Patroni looks its postmaster up there by PID, and the host's /proc would show another
 * process under that number.
 */
const REAPER = [
  'import os, signal, subprocess, sys',
  'child = subprocess.Popen(sys.argv[1:])',
  'for s in (signal.SIGTERM, signal.SIGINT): signal.signal(s, lambda n, f: child.send_signal(n))',
  'while True:',
  '    pid, status = os.wait()',
  '    if pid == child.pid: sys.exit(os.waitstatus_to_exitcode(status))',
].join('\n');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>, state = () => '') {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${state()}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// the cluster

/**
 * Starts etcd and two Patroni nodes (see the module's comment) and resolves once one node leads and the other
 * streams from it; about 10 s. Throws with the logs when something fails to start, having cleaned up. Prefer
 * {@link describePatroni}, which starts one cluster per file and stops it after.
 */
export async function startPatroniCluster(options: PatroniOptions = {}): Promise<PatroniCluster> {
  const found = findTools();
  if ('problem' in found) throw new Error(found.problem);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'hilo-patroni-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const own = (path: string) => user && chownSync(path, user.uid, user.gid);
  const password = randomBytes(12).toString('hex');
  const replicationPassword = randomBytes(12).toString('hex');
  const scope = `hilo-${randomBytes(4).toString('hex')}`;
  const env = { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', HOME: dir, PYTHONUNBUFFERED: '1' };

  let etcd: Process1 | undefined;
  const nodes: (Process1 | undefined)[] = PATRONI_NODES.map(() => undefined);
  const proxies: FaultProxy[] = [];
  const entry = { processes: () => [etcd, ...nodes].filter((p): p is Process1 => p !== undefined), dir };
  live.add(entry);
  onExitCleanUp();
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(
      nodes.flatMap((p, i) => (p ? [killProcess(p, join(dir, PATRONI_NODES[i]!, 'data', 'postmaster.pid'))] : [])),
    );
    if (etcd) await killProcess(etcd);
    await Promise.all(proxies.map((proxy) => proxy.close()));
    rmSync(dir, { recursive: true, force: true });
    live.delete(entry);
  };

  const etcdClient = await freePort();
  const etcdPeer = await freePort();
  const pgPorts = [await freePort(), await freePort()];
  const restPorts = [await freePort(), await freePort()];
  const configFiles = PATRONI_NODES.map((name) => join(dir, `${name}.yml`));

  const logsOf = (i: number, lines = 25) => (nodes[i]?.logLines ?? []).slice(-lines).join('\n');
  const allLogs = () => PATRONI_NODES.map((name, i) => `--- ${name}\n${logsOf(i, 15)}`).join('\n');

  try {
    const etcdDir = join(dir, 'etcd');
    mkdirSync(etcdDir);
    own(etcdDir);
    etcd = await spawnIsolated(
      user,
      [
        found.etcd,
        '--name=hilo',
        `--data-dir=${etcdDir}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=hilo=http://127.0.0.1:${etcdPeer}`,
        '--initial-cluster-state=new',
        '--heartbeat-interval=50',
        '--election-timeout=500',
        '--log-level=warn',
      ],
      { cwd: dir, env, mountProc: true },
    );
    await until('etcd answering', 20_000, async () => {
      const response = await fetch(`http://127.0.0.1:${etcdClient}/health`);
      return response.ok ? true : undefined;
    });

    for (const port of pgPorts) proxies.push(await startFaultProxy({ host: '127.0.0.1', port }));
    PATRONI_NODES.forEach((name, i) => {
      const nodeDir = join(dir, name);
      mkdirSync(nodeDir);
      own(nodeDir);
      const config = {
        scope,
        namespace: '/hilo/',
        name,
        log: { level: 'INFO', format: '%(asctime)s %(levelname)s: %(message)s' },
        restapi: { listen: `127.0.0.1:${restPorts[i]}`, connect_address: `127.0.0.1:${restPorts[i]}` },
        etcd3: { hosts: [`127.0.0.1:${etcdClient}`] },
        bootstrap: {
          dcs: {
            ttl: 6,
            loop_wait: 1,
            retry_timeout: 2,
            maximum_lag_on_failover: options.maximumLagOnFailover ?? 1_048_576,
            synchronous_mode: options.synchronousMode ?? true,
            synchronous_mode_strict: options.synchronousModeStrict ?? false,
            postgresql: {
              use_pg_rewind: true,
              use_slots: true,
              parameters: {
                max_connections: 50,
                shared_buffers: '16MB',
                fsync: 'off',
                wal_level: 'replica',
                hot_standby: 'on',
                wal_log_hints: 'on',
                max_wal_senders: 5,
                max_replication_slots: 5,
                wal_keep_size: '64MB',
                wal_receiver_status_interval: '1s',
                wal_retrieve_retry_interval: '200ms',
                dynamic_shared_memory_type: 'mmap',
              },
            },
          },
          initdb: [{ encoding: 'UTF8' }, 'no-sync'],
        },
        postgresql: {
          listen: `127.0.0.1:${pgPorts[i]}`,
          connect_address: `127.0.0.1:${proxies[i]!.port}`,
          data_dir: join(nodeDir, 'data'),
          bin_dir: found.bin,
          pgpass: join(nodeDir, 'pgpass'),
          authentication: {
            superuser: { username: 'postgres', password },
            replication: { username: 'replicator', password: replicationPassword },
            rewind: { username: 'postgres', password },
          },
          parameters: { unix_socket_directories: nodeDir },
          pg_hba: [
            'local all all trust',
            'host all all 127.0.0.1/32 scram-sha-256',
            'host replication replicator 127.0.0.1/32 scram-sha-256',
          ],
          remove_data_directory_on_rewind_failure: true,
          remove_data_directory_on_diverged_timelines: true,
        },
      };
      // JSON is YAML
      writeFileSync(configFiles[i]!, JSON.stringify(config, null, 2), { mode: 0o600 });
      own(configFiles[i]!);
    });

    const startNode = async (i: number) => {
      nodes[i] = await spawnIsolated(user, ['/usr/bin/python3', '-c', REAPER, found.patroni, configFiles[i]!], {
        cwd: dir,
        env,
        mountProc: true,
      });
    };
    await startNode(0);
    // the first node bootstraps the cluster alone; the second clones it afterwards
    await until(
      'node0 leading',
      60_000,
      async () => ((await members()).some((m) => m.name === 'node0' && m.role === 'leader') ? true : undefined),
      allLogs,
    );
    await startNode(1);

    async function members(): Promise<PatroniMember[]> {
      for (const port of restPorts) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/cluster`, { signal: AbortSignal.timeout(1000) });
          if (response.ok) return ((await response.json()) as { members: PatroniMember[] }).members;
        } catch {
          // that node is down: ask the other
        }
      }
      throw new Error('no Patroni REST API answers');
    }

    const urls = pgPorts.map((port) => `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);

    async function query<Row extends Record<string, unknown>>(node: number, sql: string, params?: unknown[]) {
      const client = new pg.Client({ connectionString: urls[node], connectionTimeoutMillis: 3000 });
      client.on('error', () => undefined);
      await client.connect();
      try {
        return (await client.query<Row>(sql, params)).rows;
      } finally {
        await client.end().catch(() => undefined);
      }
    }

    async function leader(): Promise<number> {
      const name = (await members()).find((m) => m.role === 'leader')?.name;
      const index = PATRONI_NODES.findIndex((node) => node === name);
      if (index < 0) throw new Error('no leader');
      return index;
    }

    const syncMode = () => currentSyncMode;
    let currentSyncMode = options.synchronousMode ?? true;

    async function waitHealthy(timeoutMs = 60_000): Promise<number> {
      return await until(
        'a healthy cluster (a leader that accepts writes, a replica streaming from it)',
        timeoutMs,
        async () => {
          const list = await members();
          const lead = list.find((m) => m.role === 'leader' && m.state === 'running');
          const other = list.find((m) => m !== lead && ['running', 'streaming'].includes(m.state));
          if (lead === undefined || other === undefined) return undefined;
          if (syncMode() && other.role !== 'sync_standby') return undefined;
          const i = PATRONI_NODES.indexOf(lead.name as (typeof PATRONI_NODES)[number]);
          await query(i, 'select txid_current()');
          const streaming = await query<{ n: number }>(
            i,
            `select count(*)::int as n from pg_stat_replication where state = 'streaming'` +
              (syncMode() ? ` and sync_state = 'sync'` : ''),
          );
          return streaming[0]?.n === 1 ? i : undefined;
        },
        () => allLogs(),
      );
    }

    await waitHealthy();

    return {
      url:
        `postgres://postgres:${password}@${pgPorts.map((port) => `127.0.0.1:${port}`).join(',')}/postgres` +
        '?target_session_attrs=read-write',
      urls,
      members,
      leader,
      waitHealthy,
      async switchover() {
        const from = await leader();
        const to = 1 - from;
        const out = await new Promise<string>((resolve, reject) => {
          const child: ChildProcess = spawn(
            found.patronictl,
            [
              '-c',
              configFiles[from]!,
              'switchover',
              '--leader',
              PATRONI_NODES[from]!,
              '--candidate',
              PATRONI_NODES[to]!,
              '--force',
              scope,
            ],
            { ...(user ?? {}), cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
          );
          let text = '';
          child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
          child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
          child.on('error', reject);
          child.on('close', (code) =>
            code === 0 ? resolve(text) : reject(new Error(`patronictl switchover: ${text}`)),
          );
        });
        await until(
          `node${to} leading after the switchover`,
          30_000,
          async () => {
            if ((await leader()) !== to) return undefined;
            await query(to, 'select txid_current()');
            return true;
          },
          () => `${out}\n${allLogs()}`,
        );
        return to;
      },
      async kill(node) {
        const p = nodes[node];
        if (p) await killProcess(p, join(dir, PATRONI_NODES[node]!, 'data', 'postmaster.pid'));
        nodes[node] = undefined;
      },
      async restart(node) {
        if (nodes[node] !== undefined) throw new Error(`${PATRONI_NODES[node]} is running`);
        const pidFile = join(dir, PATRONI_NODES[node]!, 'data', 'postmaster.pid');
        // a postmaster killed with its namespace leaves its PID file: Patroni would take it for a running server
        rmSync(pidFile, { force: true });
        await startNode(node);
      },
      async configure(settings) {
        const lead = await leader();
        const response = await fetch(`http://127.0.0.1:${restPorts[lead]}/config`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(settings),
        });
        if (!response.ok) throw new Error(`PATCH /config: ${response.status} ${await response.text()}`);
        if (typeof settings['synchronous_mode'] === 'boolean') currentSyncMode = settings['synchronous_mode'];
        await until(
          'the configuration applied',
          20_000,
          async () => {
            const [row] = await query<{ names: string }>(
              lead,
              `select current_setting('synchronous_standby_names') as names`,
            );
            return (row?.names !== '') === currentSyncMode ? true : undefined;
          },
          allLogs,
        );
      },
      stallReplicationFrom(node) {
        proxies[node]!.stall();
      },
      heal() {
        for (const proxy of proxies) proxy.heal();
      },
      query,
      log: logsOf,
      stop,
    };
  } catch (error) {
    const logs = allLogs();
    await stop().catch(() => undefined);
    throw new Error(`the Patroni cluster could not start: ${(error as Error).message}\n${logs}`, { cause: error });
  }
}

/** What {@link describePatroni} gives its body. */
export interface PatroniPerFile {
  /** The file's cluster, started before its first test and stopped after its last. */
  cluster(): PatroniCluster;
}

/**
 * `describe` for Patroni tests: one cluster for the whole block (a start takes about 10 s), started in `beforeAll`
 * with `options`, stopped in `afterAll`. Without Patroni, etcd or PostgreSQL binaries: with `CI=true` the block
 * fails with the reason; elsewhere it is skipped with a one-line hint on how to enable it.
 */
export function describePatroni(title: string, options: PatroniOptions, body: (patroni: PatroniPerFile) => void): void {
  const problem = patroniProblem();
  if (problem) {
    const placeholder = {
      cluster: () => {
        throw new Error(problem);
      },
    };
    describeMissingPeer({ needs: 'Patroni and etcd', skipping: 'Patroni tests', problem, placeholder }, title, body);
    return;
  }
  let cluster: PatroniCluster | undefined;
  describe(title, () => {
    beforeAll(async () => {
      cluster = await startPatroniCluster(options);
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    }, 30_000);
    body({
      cluster: () => {
        if (cluster === undefined) throw new Error('the Patroni cluster did not start (see the error of beforeAll)');
        return cluster;
      },
    });
  });
}
