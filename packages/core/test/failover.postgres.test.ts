/**
 * Failover (issue #40, DESIGN rule 7) on a real PostgreSQL primary with a streaming standby: replication cut while
 * the application goes on, the primary SIGKILLed, the standby promoted and the application's address moved to it.
 * Process A keeps running with blocks in memory; process B starts on the promoted server. A process here is a
 * generator with a pool of its own; every key handed out is recorded with its time.
 */
import { describeReplication } from '@hilo/testing';
import { createHiLo, createHiLoGenerator, pgClient, type HiLoEvent, tableSource, type SqlSourceKind } from 'hilo-core';
import pg from 'pg';

import { App, blind, createOrders, increasing, overlap, pool, sleep, stopAppsAfterEach } from './failover-support.js';

stopAppsAfterEach();

describeReplication('failover with asynchronous replication', (replication) => {
  it.each<SqlSourceKind>(['sequence', 'table'])(
    '%s source: A stops handing out the blocks it held, and A after the failover and B never share a key',
    async (kind) => {
      const pair = await replication.start();
      await createOrders(pair);
      const pools = [pool(pair.url), pool(pair.url)];
      const [poolA, poolB] = pools as [pg.Pool, pg.Pool];
      try {
        const serverCheckMs = 1000;
        const timeoutMs = 2000;
        // fixed blocks of 100: adaptive sizing on a fast machine reserves so far ahead that a 3 s cut may lose
        // no reservation at all, and then there is no failover loss to show
        const options = { source: kind, blockSize: 100, adaptive: false, timeoutMs, serverCheckMs } as const;
        const a: App = new App(
          'A',
          createHiLo({ client: pgClient(poolA), ...options, onEvent: (e) => a.onEvent(e) }),
          poolA,
        );
        a.start();
        await sleep(1000);
        await pair.waitForReplay();

        pair.cutReplication(); // the standby misses what follows
        await sleep(3000);
        const killedAt = performance.now();
        await pair.killPrimary();
        await sleep(1500);
        // what the standby's store says before anyone reserves on it: the next block it would give
        const standbyNext =
          kind === 'table'
            ? BigInt(
                (
                  await pair.query<{ v: string }>(
                    'standby',
                    "select next_value::text as v from hilo_segments where segment = 'orders'",
                  )
                )[0]!.v,
              )
            : undefined;
        await pair.promoteStandby();
        pair.switchApplicationTo('standby');
        const switchedAt = performance.now();

        const b = new App('B', createHiLo({ client: pgClient(poolB), ...options }), poolB).start();
        await sleep(4000);
        await Promise.all([a.stop(), b.stop()]);
        await Promise.all([a.hilo.close(), b.hilo.close()]);

        const failoverAt = a.firstEvent('failover');
        const parkedAt = a.firstEvent('server-unconfirmed');
        expect(parkedAt).toBeDefined();
        expect(failoverAt).toBeDefined();
        const failover = a.events.find((e) => e.event.type === 'failover')!.event as Extract<
          HiLoEvent,
          { type: 'failover' }
        >;
        expect(failover.from).toMatch(/timeline 1 /);
        expect(failover.to).toMatch(/timeline 2 /);
        expect(failover.change).toBe('promotion');
        expect(a.events.some((e) => e.event.type === 'lost' && e.event.reason === 'failover')).toBe(true);

        // the window: keys A handed out from memory after the primary died, before it stopped
        const window = parkedAt! - killedAt;
        const inWindow = a.keys(killedAt, parkedAt).length;
        const keysB = b.keys();
        const report = {
          kind,
          windowMs: Math.round(window),
          keysInWindow: inWindow,
          bound: serverCheckMs + timeoutMs,
          failoverNoticedMsAfterSwitch: Math.round(failoverAt! - switchedAt),
          keysA: a.handed.length,
          keysB: keysB.length,
          // the lag window: keys A handed out before the failover that B hands out again (their rows died with the primary)
          reHandedByB: overlap(a.keys(0, killedAt), keysB).length,
          savedA: a.saved,
          savedB: b.saved,
        };
        // the window (how long A served after the kill before it parked) and the keys in it are printed, not
        // asserted: a loaded machine stretches them (issue #52); what is asserted is what A and B hand out
        process.stdout.write(`failover (${kind}): ${JSON.stringify(report)}\n`);

        // both served after the switch (how many keys depends on the machine)
        expect(keysB.length).toBeGreaterThan(0);
        expect(a.keys(switchedAt).length).toBeGreaterThan(0);
        // A, once on the promoted server, and B never hand out the same key; A's keys only grow
        expect(overlap(a.keys(switchedAt), keysB)).toEqual([]);
        expect(increasing(a.keys())).toBe(true);
        expect(a.duplicateSaves).toEqual([]);
        expect(b.duplicateSaves).toEqual([]);
        // the standby did lose reservations: its store would give again keys A handed out before the primary died
        // (B hands them out again unless A, back first on the promoted server, has already raised the store; the
        // control below shows what A would have done with its blocks). A sequence logs 32 values ahead in its WAL,
        // so a short cut may lose none of its reservations: only the table must.
        if (kind === 'table') {
          const largestBeforeKill = a.keys(0, killedAt).reduce((m, k) => (k > m ? k : m), 0);
          expect(BigInt(largestBeforeKill)).toBeGreaterThanOrEqual(standbyNext!);
        }
      } finally {
        // a save still waiting for a cut-off synchronous standby keeps its connection: do not wait for it
        await Promise.all(pools.map((p) => Promise.race([p.end().catch(() => undefined), sleep(2000)])));
      }
    },
    50_000,
  );

  it('control: a process that cannot tell servers apart keeps handing out its block, and B hands out the same keys', async () => {
    const pair = await replication.start();
    await createOrders(pair);
    const pools = [pool(pair.url), pool(pair.url)];
    const [poolC, poolB] = pools as [pg.Pool, pg.Pool];
    try {
      await pair.query(
        'primary',
        'create table hilo_segments (segment varchar(255) primary key, next_value bigint not null)',
      );
      await pair.waitForReplay();
      pair.cutReplication();
      // C's one block is reserved while the standby is cut off, as hilo did before issue #40 (no server identity)
      const fixed = { blockSize: 10_000, adaptive: false, prefetchAt: false, timeoutMs: 2000 } as const;
      const c = new App('C', createHiLoGenerator({ source: blind(tableSource(pgClient(poolC))), ...fixed }), poolC);
      await c.hilo.warm(['orders']);
      c.start();
      await sleep(200);
      await pair.killPrimary();
      await pair.promoteStandby();
      pair.switchApplicationTo('standby');
      const switchedAt = performance.now();
      const b = new App('B', createHiLo({ client: pgClient(poolB), source: 'table', ...fixed }), poolB).start();
      await sleep(3000);
      await Promise.all([c.stop(), b.stop()]);
      await Promise.all([c.hilo.close(), b.hilo.close()]);
      const shared = overlap(c.keys(switchedAt), b.keys());
      process.stdout.write(
        `failover control: C handed out ${c.keys(switchedAt).length} keys after the switch (from ` +
          `${c.keys(switchedAt)[0]}), B ${b.handed.length} (from ${b.keys()[0]}), ${shared.length} of ` +
          `them B's too; ${c.duplicateSaves.length + b.duplicateSaves.length} saves failed on the primary key\n`,
      );
      expect(shared.length).toBeGreaterThan(0);
      expect(c.duplicateSaves.length + b.duplicateSaves.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map((p) => Promise.race([p.end().catch(() => undefined), sleep(2000)])));
    }
  }, 50_000);

  it('a new process with storedKeys never hands out a key a stored row has, across a real failover', async () => {
    const pair = await replication.start();
    await createOrders(pair);
    const pools = [pool(pair.url), pool(pair.url), pool(pair.url)];
    const [poolA, poolB, poolD] = pools as [pg.Pool, pg.Pool, pg.Pool];
    try {
      const options = { source: 'table', blockSize: 100, timeoutMs: 2000 } as const;
      // blocks of 100 (not grown by adaptive sizing): A reserves while the standby is cut off, and those are lost
      const a = new App('A', createHiLo({ client: pgClient(poolA), ...options, adaptive: false }), poolA).start();
      // a loaded machine saves more slowly: wait for enough rows rather than a fixed time
      await sleep(1000);
      for (const deadline = performance.now() + 10_000; a.saved <= 150 && performance.now() < deadline;)
        await sleep(50);
      await pair.waitForReplay(); // A's rows so far are on the standby
      const replicated = (await pair.query<{ id: string }>('standby', 'select id::text from orders')).map((r) =>
        Number(r.id),
      );
      pair.cutReplication();
      const cutAt = performance.now();
      await sleep(1500);
      await pair.killPrimary(); // A dies with it
      await a.stop();
      await a.hilo.close();
      await pair.promoteStandby();
      pair.switchApplicationTo('standby');
      // A's outbox saves again on the promoted server what it handed out while the standby was cut off
      const late = a.keys(cutAt).slice(0, 2000);
      await pair.query('standby', `insert into orders (id, app) select unnest($1::bigint[]), 'A late'`, [late]);
      const stored = new Set([...replicated, ...late]);

      // the control D, without storedKeys, hands out keys those rows have
      const d = createHiLo({ client: pgClient(poolD), ...options, adaptive: false, prefetchAt: false });
      // (few: the store must stay below the late rows, so that only storedKeys keeps B off them)
      const dKeys = await d.reserve('orders', 200);
      await d.close();
      const events: HiLoEvent[] = [];
      const b = new App(
        'B',
        createHiLo({
          client: pgClient(poolB),
          ...options,
          storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }],
          onStoreBehind: 'lift',
          onEvent: (e) => events.push(e),
        }),
        poolB,
      ).start();
      await sleep(2000);
      await b.stop();
      await b.hilo.close();
      const keysB = b.keys();
      process.stdout.write(
        `failover storedKeys: ${replicated.length} rows replicated before the cut, ${late.length} saved late; ` +
          `D (no storedKeys) handed out ${dKeys.filter((k) => stored.has(k)).length} of their keys, B ` +
          `${keysB.filter((k) => stored.has(k)).length} of ${keysB.length}; B lifted the store ` +
          `${events.filter((e) => e.type === 'floor-lifted').length} times\n`,
      );
      // rows on both sides of the cut, and B serving (how many depends on the machine: printed above, issue #52)
      expect(replicated.length).toBeGreaterThan(0);
      expect(late.length).toBeGreaterThan(0);
      expect(dKeys.filter((k) => stored.has(k)).length).toBeGreaterThan(0);
      expect(keysB.length).toBeGreaterThan(0);
      expect(keysB.filter((k) => stored.has(k))).toEqual([]);
      expect(b.duplicateSaves).toEqual([]);
      // the store is behind the stored rows only when A handed out keys past D's after the cut (a busy machine may
      // not: seen under two busy loops, B then had nothing to lift over); behind, B lifted it
      const storeBehind = Math.max(...stored) > Math.max(...dKeys);
      process.stdout.write(`failover storedKeys: store behind the stored rows when B started: ${storeBehind}\n`);
      if (storeBehind) expect(events.filter((e) => e.type === 'floor-lifted').length).toBeGreaterThan(0);
      const onPromoted = await pair.query<{ n: string }>(
        'standby',
        `select count(*)::text as n from orders where app = 'A'`,
      );
      expect(Number(onPromoted[0]!.n)).toBeGreaterThanOrEqual(replicated.length);
    } finally {
      await Promise.all(pools.map((p) => Promise.race([p.end().catch(() => undefined), sleep(2000)])));
    }
  }, 50_000);
});
