/**
 * hilo on a real three-node MariaDB Galera Cluster (issue #47), started by `describeGalera` (@hilo/testing): the
 * table source from processes on every node hands out no key twice; the sequence source, whose `nextval` Galera
 * does not make unique across nodes, is refused before the first key; a node cut off from the Primary Component
 * (errors 1047) gives callers no error a retry cures; a round-robin load balancer over nodes with distinct
 * `server_id`s is never a failover; a node killed and restarted rejoins without a key handed out twice; a session
 * with `wsrep_on` OFF is refused before it writes; the reads that must see other nodes' commits (stored-key probes,
 * the hi row) wait for them.
 *
 * A "process" here is a generator with a mysql2 pool of its own; several run at once in this Jest worker, as the
 * clients of several application processes would. One cluster serves the whole file (about 20 s to start); each
 * test uses segments and tables of its own and leaves every node Synced, and waits for what it needs by polling.
 */
import { describeGalera, type GaleraCluster } from '@hilo/testing';
import {
  alterBlockSize,
  checkStore,
  createHiLo,
  HiLoError,
  HiLoSourceError,
  mysqlClient,
  sqlStoredKeys,
  tableSource,
  type HiLoEvent,
  type HiLoGenerator,
} from 'hilo-core';
import mysql from 'mysql2/promise';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A segment (and table) name of its own per test. */
const fresh = (what: string) => `g${Date.now().toString(36)}${(counter++).toString(36)}_${what}`;

interface Proc {
  readonly name: string;
  readonly pool: mysql.Pool;
  readonly hilo: HiLoGenerator<number | bigint>;
  readonly keys: number[];
  readonly errors: unknown[];
  readonly events: HiLoEvent[];
}

/** A mysql2 pool; `init` runs first on each of its connections, as a pool's init statement does. */
function pool(url: string, size = 4, init?: string): mysql.Pool {
  const p = mysql.createPool({ uri: url, connectionLimit: size, connectTimeout: 2000 });
  p.on('connection', (connection) => {
    connection.on('error', () => undefined);
    // the event carries mysql2's callback connection (its types say the promise one): queued before any other query
    const core = connection as unknown as { query(sql: string, done: (error: unknown) => void): void };
    if (init !== undefined) core.query(init, () => undefined);
  });
  return p;
}

const procs: Proc[] = [];

function proc(name: string, url: string, options: Partial<Parameters<typeof createHiLo>[0]> = {}, init?: string): Proc {
  const p = pool(url, 4, init);
  const events: HiLoEvent[] = [];
  const hilo = createHiLo({
    client: mysqlClient(p),
    source: 'table',
    blockSize: 50,
    adaptive: false,
    timeoutMs: 2000,
    serverCheckMs: 500,
    // a node rejoining by state transfer stalls its donor, and writers on one row conflict again and again: a CI
    // run gave up after 9 conflicted attempts in 11.4 s with the default 10 s (the README says to raise it)
    retryBudgetMs: 30_000,
    ...options,
    onEvent: (event) => events.push(event),
  });
  const created = { name, pool: p, hilo, keys: [], errors: [], events };
  procs.push(created);
  return created;
}

afterEach(async () => {
  for (const p of procs.splice(0)) {
    await p.hilo.close().catch(() => undefined);
    await p.pool.end().catch(() => undefined);
  }
});

/** Calls `next(segment)` in `loops` concurrent loops until `stop()` says so; records keys and errors. */
async function run(p: Proc, segment: string, stop: () => boolean, loops = 2): Promise<void> {
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (!stop()) {
        try {
          p.keys.push(Number(await p.hilo.next(segment)));
        } catch (error) {
          p.errors.push(error);
          await sleep(5);
        }
      }
    }),
  );
}

/** Resolves once `ok()` holds (checked every 20 ms), or fails after `ms`: a wait as long as it takes, not longer. */
async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

const handedOut = (all: readonly Proc[]) => all.reduce((n, p) => n + p.keys.length, 0);

/** Resolves once `all` handed out `more` keys beyond what they had when called. */
function moreKeys(all: readonly Proc[], more: number): Promise<void> {
  const from = handedOut(all);
  return until(`${more} more keys`, () => handedOut(all) >= from + more);
}

/** A read on node `i` that waits until the node applied every write set the cluster committed before it. */
const causal = (sql: string) => `set statement wsrep_sync_wait = 1 for ${sql}`;

function duplicates(all: readonly Proc[]): number {
  const keys = all.flatMap((p) => p.keys);
  return keys.length - new Set(keys).size;
}

const failovers = (p: Proc) => p.events.filter((e) => e.type === 'failover').length;

const isConflict = (error: unknown) => error instanceof HiLoSourceError && error.conflict;

describeGalera('hilo on a three-node Galera cluster', (galera) => {
  let cluster: GaleraCluster;
  beforeAll(() => {
    cluster = galera.cluster();
  });

  it('the harness: three nodes, Synced, one Primary Component, distinct server_ids, writes on one seen on all', async () => {
    for (let i = 0; i < 3; i++) {
      const s = await cluster.status(i);
      expect([s['cluster_size'], s['cluster_status'], s['local_state_comment']]).toEqual(['3', 'Primary', 'Synced']);
      const [row] = await cluster.query<{ id: number; on: number }>(i, 'select @@server_id as id, @@wsrep_on as `on`');
      expect(row).toEqual({ id: i + 1, on: 1 });
    }
    const table = fresh('t');
    await cluster.query(0, `create table ${table} (id int primary key) engine=InnoDB`);
    await cluster.query(1, `insert into ${table} values (1)`);
    // cluster.query opens a connection per statement: the wait is set for the statement itself
    expect(await cluster.query(2, causal(`select id from ${table}`))).toEqual([{ id: 1 }]);
  });

  it('table source: six processes, two per node, hand out no key twice', async () => {
    const segment = fresh('orders');
    const all = [0, 1, 2].flatMap((i) => [proc(`n${i}a`, cluster.urls[i]!), proc(`n${i}b`, cluster.urls[i]!)]);
    const deadline = Date.now() + 2000;
    await Promise.all(all.map((p) => run(p, segment, () => Date.now() > deadline)));
    const handed = all.reduce((n, p) => n + p.keys.length, 0);
    // every process served; how many keys in 2 s depends on the machine (issue #52)
    expect(all.every((p) => p.keys.length > 0)).toBe(true);
    process.stdout.write(`galera, six processes: ${handed} keys in 2 s\n`);
    expect(duplicates(all)).toBe(0);
    expect(all.flatMap((p) => p.errors)).toEqual([]);
    expect(all.map(failovers)).toEqual([0, 0, 0, 0, 0, 0]);
    // writers on three nodes contend for one row: Galera refuses the losers' commits (1213, a certification
    // conflict); each is retried without parking the keys in hand or asking which server hilo is on
    const conflicts = all.flatMap((p) => p.events).filter((e) => e.type === 'retry' && isConflict(e.error));
    const unconfirmed = all.flatMap((p) => p.events).filter((e) => e.type === 'server-unconfirmed');
    // a server check slower than its park mark parks the keys until it answers (the watch's own timer: a busy
    // machine does it, 3 events in a run under two busy loops); a conflict must never be the reason
    const slowCheck = (e: HiLoEvent) =>
      e.type === 'server-unconfirmed' &&
      e.error instanceof Error &&
      /did not answer a check within/.test(e.error.message);
    process.stdout.write(
      `galera table source: ${handed} keys, ${conflicts.length} certification conflicts retried, ` +
        `${unconfirmed.filter(slowCheck).length} slow server checks\n`,
    );
    expect(unconfirmed.filter((e) => !slowCheck(e))).toEqual([]);
  });

  it('sequence source: refused before the first key, naming the table source', async () => {
    const segment = fresh('seq');
    const p = proc('seq', cluster.urls[0]!, { source: 'sequence' });
    const error = await p.hilo.next(segment).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoSourceError);
    expect((error as HiLoError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/Galera/);
    expect((error as Error).message).toMatch(/source: 'table'/);
    // nothing was created: no sequence for the refused segment
    const rows = await cluster.query(0, `select table_name from information_schema.tables where table_name = ?`, [
      `${segment}_hilo_seq`,
    ]);
    expect(rows).toEqual([]);
  });

  it('hilo alter (alterBlockSize) is refused with the same reason', async () => {
    const p = pool(cluster.urls[1]!);
    try {
      const error = await alterBlockSize(mysqlClient(p), { segment: fresh('alter'), blockSize: 40 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HiLoSourceError);
      expect((error as HiLoError).hint?.cli).toMatch(/--source table/);
    } finally {
      await p.end();
    }
  });

  it("a session with wsrep_on=OFF (a pool's init statement, SET GLOBAL) is refused before it writes: no key twice", async () => {
    const segment = fresh('off');
    // every connection of this pool turns Galera off for its session: its writes would stay on node 2
    const off = proc('off', cluster.urls[1]!, {}, 'SET SESSION wsrep_on = OFF');
    const on = proc('on', cluster.urls[0]!);
    const attempt = async () => {
      try {
        off.keys.push(Number(await off.hilo.next(segment)));
      } catch (error) {
        off.errors.push(error);
      }
    };
    await attempt();
    await run(on, segment, () => on.keys.length >= 120, 1);
    await attempt();
    // the source itself, asked without the server's identity (as `hilo reserve` and tools do)
    const direct = await tableSource(mysqlClient(off.pool))
      .reserve(segment, { size: 10, signal: new AbortController().signal })
      .catch((e: unknown) => e);
    // nor does such a session move the row: not up (hilo floor), not back (unused keys returned)
    const offSource = tableSource(mysqlClient(off.pool));
    const raised = await offSource.raiseAbove!(segment, 1_000_000n);
    const stored = await tableSource(mysqlClient(on.pool)).nextKey(segment);
    const released = await offSource.release!(segment, { first: stored - 10n, last: stored - 1n });
    await run(on, segment, () => on.keys.length >= 240, 1);
    expect([raised, released]).toEqual([false, false]);
    expect(duplicates([off, on])).toBe(0);
    expect(Math.max(...on.keys)).toBeLessThan(1_000_000);
    expect(off.keys).toEqual([]);
    for (const error of [...off.errors, direct]) {
      expect(error).toBeInstanceOf(HiLoSourceError);
      expect((error as HiLoError).retryable).toBe(false);
      expect((error as Error).message).toMatch(/wsrep_on=OFF/);
      expect((error as HiLoError).hint?.library).toMatch(/SET SESSION wsrep_on=OFF/);
    }
    expect(off.errors).toHaveLength(2);
    // a node whose wsrep_on was turned off globally (new sessions inherit it) is still a Galera node to hilo
    await cluster.query(1, 'SET GLOBAL wsrep_on = OFF');
    try {
      const global = proc('global', cluster.urls[1]!);
      const refused = await global.hilo.next(segment).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(HiLoSourceError);
      expect((refused as Error).message).toMatch(/wsrep_on=OFF/);
    } finally {
      await cluster.query(1, 'SET GLOBAL wsrep_on = ON');
    }
    // nothing was written on node 2 alone: every node holds the row the other process left
    const rows = await Promise.all(
      [0, 1, 2].map((i) =>
        cluster.query(i, causal('select cast(next_value as char) as v from hilo_segments where segment = ?'), [
          segment,
        ]),
      ),
    );
    expect(new Set(rows.map((r) => JSON.stringify(r))).size).toBe(1);
  });

  it("reads that must see another node's commits wait for them: stored-key probes, the hi row, hilo check", async () => {
    const segment = fresh('causal');
    const table = fresh('orders');
    await cluster.query(0, `create table ${table} (id bigint primary key) engine=InnoDB`);
    const signal = new AbortController().signal;
    const [poolA, poolB] = [pool(cluster.urls[0]!), pool(cluster.urls[1]!)];
    const [onA, onB] = [mysqlClient(poolA), mysqlClient(poolB)];
    try {
      const source = tableSource(onA);
      await source.prepare(segment);
      await cluster.query(1, causal(`select count(*) from ${table}`));
      const probes = sqlStoredKeys(onB, [{ segment, table, column: 'id' }]);
      // node 2 has the table and the row, and the probe read its catalog entry
      await probes.largest(segment, signal);
      const causalReads = async () => Number((await cluster.status(1))['causal_reads']);
      const readsBefore = await causalReads();
      // node 2 stops applying what the others commit (FLUSH TABLES WITH READ LOCK desyncs it and pauses its applier)
      const lock = await mysql.createConnection(cluster.urls[1]!);
      try {
        await lock.query('flush tables with read lock');
        // committed on node 1: a key stored by another writer, and a block reserved there
        await cluster.query(0, `insert into ${table} values (5000)`);
        const [block] = await source.reserve(segment, { size: 100, signal });
        // node 2 has neither yet: a read without a wait misses them
        expect(await cluster.query(1, `select max(id) as m from ${table}`)).toEqual([{ m: null }]);
        const unlocking = sleep(300).then(() => lock.query('unlock tables'));
        const [within, largest, next, check] = await Promise.all([
          probes.within(segment, { first: 4951n, last: 5050n }, signal),
          probes.largest(segment, signal),
          tableSource(onB, { create: false }).nextKey(segment, signal),
          checkStore(onB, { segment, source: 'table', stored: [{ table, column: 'id' }] }),
        ]);
        await unlocking;
        expect(within?.key).toBe(5000n);
        expect(largest?.key).toBe(5000n);
        expect(next).toBe(block!.last + 1n);
        expect([check.status, check.nextKey, check.largest?.key]).toEqual(['behind', block!.last + 1n, 5000n]);
      } finally {
        await lock.query('unlock tables').catch(() => undefined);
        await lock.end();
      }
      // each of those reads waited for the cluster (wsrep_causal_reads counts them on node 2)
      expect((await causalReads()) - readsBefore).toBeGreaterThanOrEqual(5);
      await cluster.waitSynced();
    } finally {
      await Promise.all([poolA.end(), poolB.end()]);
    }
  });

  it('round robin over the nodes (distinct server_ids): no failover, no key twice, no error', async () => {
    const segment = fresh('lb');
    const all = [proc('a', cluster.url), proc('b', cluster.url), proc('c', cluster.url)];
    let stop = false;
    const running = Promise.all(all.map((p) => run(p, segment, () => stop, 4)));
    // the pools' connections lead to all three nodes (besides this query's own)
    const perNode = () =>
      Promise.all(
        [0, 1, 2].map(async (i) => {
          const [row] = await cluster.query<{ n: number }>(
            i,
            "select count(*) - 1 as n from information_schema.processlist where user = 'hilo'",
          );
          return Number(row?.n);
        }),
      );
    let connected: number[] = [];
    await until('connections on every node', async () => (connected = await perNode()).every((n) => n > 0));
    await until('1,000 keys', () => handedOut(all) > 1000);
    stop = true;
    await running;
    expect(connected.every((n) => n > 0)).toBe(true);
    expect(all.map(failovers)).toEqual([0, 0, 0]);
    expect(all.flatMap((p) => p.events).filter((e) => e.type === 'lost')).toEqual([]);
    expect(duplicates(all)).toBe(0);
    expect(all.flatMap((p) => p.errors)).toEqual([]);
    const handed = all.reduce((n, p) => n + p.keys.length, 0);
    process.stdout.write(`galera round robin: ${handed} keys, connections per node ${connected.join('/')}\n`);
    // how many keys depends on the machine: printed above, not asserted (issue #52)
    expect(handed).toBeGreaterThan(0);
  });

  it('a node cut off from the Primary Component: callers see no error, the pools move on, no key twice', async () => {
    const segment = fresh('iso');
    const all = [proc('a', cluster.url), proc('b', cluster.url), proc('c', cluster.url)];
    let stop = false;
    const running = Promise.all(all.map((p) => run(p, segment, () => stop, 3)));
    await moreKeys(all, 200);
    const before = handedOut(all);
    await cluster.isolate(1);
    // node 2 answers 1047 now; the balancer still sends connections to it
    const refused = await cluster
      .query(1, `select count(*) from hilo_segments`)
      .catch((e: { errno?: number }) => e.errno);
    expect(refused).toBe(1047);
    // until callers met the isolated node (a retry) and were served on the others since
    const retries = () => all.flatMap((p) => p.events).filter((e) => e.type === 'retry').length;
    await until('a retry', () => retries() > 0);
    await moreKeys(all, 2000);
    const during = handedOut(all);
    await cluster.rejoin(1);
    await moreKeys(all, 200);
    stop = true;
    await running;
    expect(during).toBeGreaterThan(before);
    expect(all.flatMap((p) => p.errors)).toEqual([]);
    expect(duplicates(all)).toBe(0);
    expect(all.map(failovers)).toEqual([0, 0, 0]);
    const retried = all.flatMap((p) => p.events).filter((e) => e.type === 'retry');
    process.stdout.write(`galera isolation: ${retried.length} retries, ${during - before} keys while cut off\n`);
  });

  it('a node killed (SIGKILL) and restarted: it rejoins, no key twice, no error, no failover', async () => {
    const segment = fresh('kill');
    const all = [proc('a', cluster.url), proc('b', cluster.url), proc('direct', cluster.urls[0]!)];
    let stop = false;
    const running = Promise.all(all.map((p) => run(p, segment, () => stop, 2)));
    await moreKeys(all, 200);
    const uuid = async (i: number) => (await cluster.status(i))['cluster_state_uuid'];
    const identityBefore = await uuid(2);
    await cluster.kill(2);
    // the others serve on without it
    await moreKeys(all, 500);
    const restarting = performance.now();
    await cluster.restart(2);
    const rejoinMs = Math.round(performance.now() - restarting);
    // what hilo reads as the server's identity on Galera survives the restart, and every node shares it
    expect(await Promise.all([0, 1, 2].map(uuid))).toEqual([identityBefore, identityBefore, identityBefore]);
    await moreKeys(all, 200);
    stop = true;
    await running;
    // a process on the restarted node once it is back
    const after = proc('after', cluster.urls[2]!);
    await run(after, segment, () => after.keys.length >= 200, 1);
    const everyone = [...all, after];
    expect(everyone.flatMap((p) => p.errors)).toEqual([]);
    expect(duplicates(everyone)).toBe(0);
    expect(everyone.map(failovers)).toEqual([0, 0, 0, 0]);
    const handed = everyone.reduce((n, p) => n + p.keys.length, 0);
    process.stdout.write(`galera kill -9: ${handed} keys, the node Synced again ${rejoinMs} ms after its restart\n`);
  });
});
