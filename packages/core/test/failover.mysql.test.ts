/**
 * Failover (issue #40, DESIGN rule 7) on a real MariaDB primary with an asynchronous GTID replica: the replica held
 * back (`STOP SLAVE`) while the application goes on reserving, the primary SIGKILLed, the replica promoted and the
 * application's address moved to it. Process A keeps running with blocks in memory; process B starts on the
 * promoted server. A process here is a generator with a mysql2 pool of its own, saving a row per key into `orders`
 * (id primary key), so a key handed out twice and saved twice is a failed save. The control, like PostgreSQL's, gives
 * a process C one big block reserved while the replica is held back, from a source that cannot tell servers apart
 * (every source before issue #40): after the same failover C goes on with it while B reserves the same keys again.
 */
import { describeMariadbReplication, type ReplicatedMariadb } from '@hilo/testing';
import {
  createHiLo,
  createHiLoGenerator,
  mysqlClient,
  tableSource,
  type HiLoEvent,
  type SqlSourceKind,
} from 'hilo-core';
import mysql from 'mysql2/promise';

import { App, blind, increasing, overlap, stopAppsAfterEach, until } from './failover-support.js';

stopAppsAfterEach();

const serverCheckMs = 1000;
const timeoutMs = 2000;
// fixed blocks (no adaptive sizing): A must reserve blocks the replica misses, and hold keys of them at the kill
const blockSize = 200;
const fixed = { blockSize, adaptive: false, timeoutMs } as const;

/** Ends a pool, waiting at most 2 s (a connection to the killed primary may never answer). */
async function end(p: mysql.Pool): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000).unref()));
  await Promise.race([p.end().catch(() => undefined), late]);
  clearTimeout(timer);
}

function pool(url: string): mysql.Pool {
  const p = mysql.createPool({ uri: url, connectionLimit: 4, connectTimeout: 2000 });
  p.on('connection', (connection) => connection.on('error', () => undefined)); // they die with the primary
  return p;
}

/** The first key the store of `kind` gives next, read on `role` without reserving anything. */
async function nextInStore(pair: ReplicatedMariadb, role: 'primary' | 'replica', kind: SqlSourceKind) {
  const sql =
    kind === 'table'
      ? "select cast(next_value as char) as v from hilo_segments where segment = 'orders'"
      : 'select cast(next_not_cached_value as char) as v from orders_hilo_seq';
  const [row] = await pair.query<{ v: string }>(role, sql);
  return BigInt(row!.v);
}

interface Outcome {
  readonly a: App;
  readonly b: App;
  readonly killedAt: number;
  readonly switchedAt: number;
  /** The largest key A handed out before the primary died. */
  readonly lastBeforeKill: number;
  /** What the replica's store would give next when it was promoted. */
  readonly replicaNext: bigint;
  /** HILO_FAILOVER warnings emitted while it ran. */
  readonly warnings: string[];
}

/**
 * A reserves and saves on the primary; the replica is held back; A reserves at least two more blocks the replica
 * never sees; the primary is killed; once A's saves have failed and A parked its keys, the replica is promoted and
 * the application's address moved; B starts on it; both run until A saw the failover and each handed out 300 keys
 * on the promoted server.
 */
async function failover(pair: ReplicatedMariadb, kind: SqlSourceKind): Promise<Outcome> {
  await pair.query('primary', 'create table orders (id bigint primary key, app varchar(8) not null) engine=InnoDB');
  const pools = [pool(pair.url), pool(pair.url)] as const;
  const [poolA, poolB] = pools;
  const warnings: string[] = [];
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
    if (options?.code === 'HILO_FAILOVER') warnings.push(String(warning));
    else emitWarning.call(process, warning, options);
  }) as typeof process.emitWarning;
  try {
    const a: App = new App(
      'A',
      createHiLo({ client: mysqlClient(poolA), source: kind, ...fixed, serverCheckMs, onEvent: (e) => a.onEvent(e) }),
      poolA,
    ).start();
    const state = () => `(A handed out ${a.handed.length} keys, saved ${a.saved})`;
    await until('A saved 150 rows on the primary', () => a.saved >= 150, 15_000, state);
    await pair.waitForReplica();
    const replicated = await nextInStore(pair, 'replica', kind);

    await pair.holdBack(); // the replica misses what follows (a reservation committed meanwhile may reach it)
    const heldAt = performance.now();
    const reservedSince = (at: number) => a.events.filter((e) => e.event.type === 'reserved' && e.at >= at).length;
    await until('A reserved 2 blocks the replica misses', () => reservedSince(heldAt) >= 2, 15_000, state);
    const killedAt = performance.now();
    await pair.stopPrimary();
    const lastBeforeKill = Math.max(...a.keys(0, killedAt));
    // the application notices the database is gone, and hilo's next check parks the keys it holds; a failover
    // manager takes longer than that to promote (its own checks of the primary come seconds apart)
    await until('A saw a save fail', () => a.failedSaves.some((at) => at > killedAt), 10_000, state);
    await until('A parked its keys', () => a.firstEvent('server-unconfirmed') !== undefined, 10_000, state);

    const replicaNext = await nextInStore(pair, 'replica', kind);
    expect(replicaNext).toBeGreaterThanOrEqual(replicated);
    await pair.promoteReplica();
    pair.switchApplicationTo('replica');
    const switchedAt = performance.now();

    const b = new App('B', createHiLo({ client: mysqlClient(poolB), source: kind, ...fixed, serverCheckMs }), poolB);
    b.start();
    await until(
      'A and B handed out 300 keys each on the promoted server',
      () => a.keys(switchedAt).length >= 300 && b.handed.length >= 300 && a.firstEvent('failover') !== undefined,
      20_000,
      () => {
        const events = a.events.map((e) => e.event.type).join(',');
        return `(A ${a.keys(switchedAt).length} after the switch, B ${b.handed.length}, A's events ${events})`;
      },
    );
    await Promise.all([a.stop(), b.stop()]);
    await Promise.all([a.hilo.close(), b.hilo.close()]);
    return { a, b, killedAt, switchedAt, lastBeforeKill, replicaNext, warnings };
  } finally {
    process.emitWarning = emitWarning;
    await Promise.all(pools.map(end));
  }
}

describeMariadbReplication('MariaDB failover with asynchronous replication', (replication) => {
  it.each<SqlSourceKind>(['sequence', 'table'])(
    '%s source: A drops the blocks it held, and A after the failover and B never share a key',
    async (kind) => {
      const pair = await replication.start();
      const { a, b, killedAt, switchedAt, lastBeforeKill, replicaNext, warnings } = await failover(pair, kind);

      const parkedAt = a.firstEvent('server-unconfirmed')!;
      const failoverAt = a.firstEvent('failover');
      expect(failoverAt).toBeDefined();
      const failovers = a.events.filter((e) => e.event.type === 'failover').map((e) => e.event);
      expect(failovers).toEqual([
        {
          type: 'failover',
          from: 'server_id 1',
          to: 'server_id 2',
          keysLost: expect.any(Number) as number,
          change: 'other-server',
        },
      ]);
      expect(a.events.some((e) => e.event.type === 'lost' && e.event.reason === 'failover')).toBe(true);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('server_id 1 → server_id 2');

      // the replica did miss A's last reservations: its store would give again keys A handed out
      expect(replicaNext).toBeLessThanOrEqual(BigInt(lastBeforeKill));

      const keysB = b.keys();
      const report = {
        kind,
        windowMs: Math.round(parkedAt - killedAt),
        keysInWindow: a.keys(killedAt, parkedAt).length,
        bound: serverCheckMs + timeoutMs,
        failoverNoticedMsAfterSwitch: Math.round(failoverAt! - switchedAt),
        keysLost: (failovers[0] as Extract<HiLoEvent, { type: 'failover' }>).keysLost,
        keysA: a.handed.length,
        keysB: keysB.length,
        reHandedByB: overlap(a.keys(0, killedAt), keysB).length,
        savedA: a.saved,
        savedB: b.saved,
      };
      // the window (how long A served after the kill before it parked) is printed, not asserted: a loaded machine
      // stretches it (issue #52)
      process.stdout.write(`MariaDB failover (${kind}): ${JSON.stringify(report)}\n`);

      // A's keys only grow, so A never hands out a key twice; A after the switch and B never share one
      const back = a.handed.findIndex((h, i) => i > 0 && h.key <= a.handed[i - 1]!.key);
      const wentBack =
        back > 0 &&
        `A handed out ${a.handed[back]!.key} after ${a.handed[back - 1]!.key}, ` +
          `${Math.round(a.handed[back]!.at - switchedAt)} ms after the switch`;
      expect(wentBack).toBe(false);
      expect(increasing(a.keys())).toBe(true);
      expect(overlap(a.keys(switchedAt), keysB)).toEqual([]);
      expect(a.duplicateSaves).toEqual([]);
      expect(b.duplicateSaves).toEqual([]);
    },
    60_000,
  );

  it('control: a source that cannot tell servers apart goes on with its block, and B hands out the same keys', async () => {
    const pair = await replication.start();
    await pair.query('primary', 'create table orders (id bigint primary key, app varchar(8) not null) engine=InnoDB');
    await pair.query(
      'primary',
      'create table hilo_segments (segment varchar(255) primary key, next_value bigint not null) engine=InnoDB',
    );
    const pools = [pool(pair.url), pool(pair.url)] as const;
    const [poolC, poolB] = pools;
    try {
      await pair.waitForReplica();
      await pair.holdBack();
      // C's one block is reserved while the replica is held back, by a source without the server's identity (hilo
      // before issue #40); one big block and no prefetch, so C hands out keys of that block after the failover
      const big = { ...fixed, blockSize: 10_000, prefetchAt: false } as const;
      const c = new App('C', createHiLoGenerator({ source: blind(tableSource(mysqlClient(poolC))), ...big }), poolC);
      await c.hilo.warm(['orders']);
      c.start();
      await until('C saved 100 rows on the primary', () => c.saved >= 100);
      const killedAt = performance.now();
      await pair.stopPrimary();
      await until('C saw a save fail', () => c.failedSaves.some((at) => at > killedAt));
      await pair.promoteReplica();
      pair.switchApplicationTo('replica');
      const switchedAt = performance.now();
      const b = new App(
        'B',
        createHiLo({ client: mysqlClient(poolB), source: 'table', ...fixed, serverCheckMs }),
        poolB,
      );
      b.start();
      // B reserves from the replica's store, which never saw C's block: it climbs into the keys C hands out
      const afterSwitch = () => c.keys(switchedAt);
      await until(
        'B handed out 100 keys above the first C handed out after the switch',
        () => afterSwitch().length > 0 && b.keys().filter((k) => k > afterSwitch()[0]!).length >= 100,
        20_000,
        () =>
          `(C ${afterSwitch().length} after the switch from ${afterSwitch()[0]}, B ${b.handed.length} up to ${b.keys().at(-1)})`,
      );
      await Promise.all([c.stop(), b.stop()]);
      await Promise.all([c.hilo.close(), b.hilo.close()]);
      const shared = overlap(c.keys(switchedAt), b.keys());
      process.stdout.write(
        `MariaDB failover control: C handed out ${c.keys(switchedAt).length} keys after the switch (from ` +
          `${c.keys(switchedAt)[0]}), B ${b.handed.length} (from ${b.keys()[0]}), ${shared.length} of them B's ` +
          `too; ${c.duplicateSaves.length + b.duplicateSaves.length} saves failed on the primary key\n`,
      );
      expect(c.events.some((e) => e.event.type === 'failover')).toBe(false);
      expect(shared.length).toBeGreaterThan(0);
      expect(c.duplicateSaves.length + b.duplicateSaves.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map(end));
    }
  }, 60_000);
});
