/**
 * Network faults between hilo and its database, injected by a loopback proxy (@hilo/testing's fault proxy):
 * a stalled link (packets dropped, no reset), a connection cut right after a reservation statement reached
 * the server, a refused port (a database restarting). Shared by fault.postgres.test.ts and fault.mysql.test.ts;
 * runs for the sequence and the table source of each database.
 */
import { describeDatabase, startFaultProxy, type FaultProxy } from '@hilo/testing';
import { HiLoExhaustedError, HiLoSourceUnavailableError, HiLoTimeoutError } from '../src/errors.js';
import { createHiLoGenerator, type HiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import type { HiLoGeneratorOptions } from '../src/engine/options.js';

type Kind = 'postgres' | 'mysql';

/** How the suite opens a client on a URL: core's `connect()` unless a driver of another name is given. */
export interface FaultSuiteDriver {
  readonly name: string;
  readonly connect: (url: string, options?: { closeTimeoutMs?: number }) => Promise<SqlClient>;
  /** Whether the driver's pool can be closed within a bound while a statement hangs (the mariadb connector's cannot). */
  readonly boundsClose: boolean;
  /**
   * Whether the driver's pool itself waits out a refused port for up to its acquire timeout (the mariadb
   * connector's does), so that hilo sees a slow success rather than a failed attempt.
   */
  readonly waitsOutRefusals?: boolean;
  /**
   * Whether hilo can destroy one connection of the driver's pool (node-postgres, mysql2 and the mariadb connector
   * let it; postgres.js has no call for it), so that a connection a blackhole left dead is never waited on twice.
   * @default true
   */
  readonly dropsDeadConnections?: boolean;
}

export function faultSuite(kind: Kind, driver?: FaultSuiteDriver): void {
  const on = `${kind === 'postgres' ? 'PostgreSQL' : 'MariaDB'}${driver ? ` through ${driver.name}` : ''}`;
  const openClient = driver?.connect ?? connect;

  for (const sourceKind of ['sequence', 'table'] as const) {
    describeDatabase(kind, `network faults on ${on}, ${sourceKind} source`, (db) => {
      let proxy: FaultProxy;
      const opened: { generator: HiLoGenerator<number>; client: SqlClient }[] = [];

      beforeEach(async () => {
        proxy = await startFaultProxy(db.url);
      });

      afterEach(async () => {
        proxy.heal();
        for (const { generator, client } of opened.splice(0)) {
          await generator.close();
          await client.close();
        }
        await proxy.close();
      });

      /** A generator whose own connections go through the proxy (`direct`: straight to the database). */
      async function openGenerator(
        options: Omit<HiLoGeneratorOptions<'number'>, 'source'>,
        direct = false,
      ): Promise<HiLoGenerator<number>> {
        const client = await openClient(direct ? db.url : proxy.url(db.url));
        const blockSize = options.blockSize ?? 10;
        const source =
          sourceKind === 'sequence'
            ? sequenceSource(client, { increment: blockSize })
            : tableSource(client, { increment: blockSize });
        const generator = createHiLoGenerator({ ...options, source, blockSize });
        opened.push({ generator, client });
        return generator;
      }

      it(
        'a stalled link: each attempt times out, the block in hand keeps serving, callers get a typed ' +
          'error within the budget, and it recovers after heal',
        async () => {
          const segment = `stall_${sourceKind}`;
          // a budget of ten attempt timeouts: on a loaded machine a timer can fire late, and the second attempt must still fit
          const hilo = await openGenerator({
            blockSize: 20,
            adaptive: false,
            prefetchAt: false,
            timeoutMs: 300,
            retryBudgetMs: 3000,
            retryBaseDelayMs: 10,
          });
          // On a loaded machine the first round trip through the proxy (connecting, creating the sequence) can take
          // longer than the 300 ms each attempt gets here (seen once in CI); start-up is not what this test is about.
          for (let attempt = 1; ; attempt++) {
            try {
              await hilo.warm([segment]);
              break;
            } catch (error) {
              if (attempt === 5) throw error;
            }
          }
          proxy.stall();
          // the 20 keys in hand need no round trip
          const inHand = Array.from({ length: 20 }, () => hilo.nextSync(segment));
          const error = await hilo.next(segment).then(
            () => undefined,
            (e: unknown) => e,
          );
          // the mechanism, not how long it took (issue #52): attempts that timed out, ended by the budget set here
          // (not the 10 s default); the test's timeout is the hang detector
          expect(error).toBeInstanceOf(HiLoExhaustedError);
          expect((error as Error).message).toMatch(/the limit set by `retryBudgetMs` \(3000 ms\)/);
          expect((error as { cause?: unknown }).cause).toBeInstanceOf(HiLoTimeoutError);
          expect(hilo.stats()[segment]!.failedAttempts).toBeGreaterThanOrEqual(1);
          proxy.heal();
          const after = await hilo.next(segment);
          expect(inHand).not.toContain(after);
          expect(after).toBeGreaterThan(Math.max(...inHand));
        },
        30_000,
      );

      // Issue 52 item 7: a blackhole that heals while the connections it swallowed stay dead ("zombies"). Each
      // attempt that waited on one destroys it; every other connection hilo had before is destroyed when next taken;
      // so the first request after the heal runs on a new connection, and none of the dead is waited on again.
      if (driver?.dropsDeadConnections ?? true) {
        it(
          'a blackhole that heals while the old connections stay dead: the dead connections are dropped and the ' +
            'first request after the heal is served on a new connection, with no failed attempt',
          async () => {
            const segment = `zombie_${sourceKind}`;
            // attempts get 2 s: the first one after the heal opens a connection and must not time out on a busy machine
            const hilo = await openGenerator({
              blockSize: 5,
              adaptive: false,
              prefetchAt: false,
              timeoutMs: 2000,
              retryBudgetMs: 2500,
              retryBaseDelayMs: 10,
            });
            await hilo.warm([segment]);
            // the block in hand used up, and idle connections in the pool besides the one that reserved it: more
            // than the attempts during the blackhole can take, so that some wait, idle and dead, for the first
            // request after the heal (each would cost it one attempt's timeout)
            for (let i = 0; i < 5; i++) hilo.nextSync(segment);
            await Promise.all(['b', 'c', 'd', 'e', 'f', 'g'].map((s) => hilo.reserve(`${segment}_${s}`, 1)));
            expect(proxy.connections).toBeGreaterThanOrEqual(4);

            proxy.blackhole();
            const during = await hilo.next(segment).then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(during).toBeInstanceOf(HiLoExhaustedError);
            const failed = hilo.stats()[segment]!.failedAttempts;
            expect(failed).toBeGreaterThanOrEqual(1);

            proxy.heal();
            const acceptedAtHeal = proxy.accepted;
            const key = await hilo.next(segment);
            expect(key).toBeGreaterThan(0);
            // served by the first attempt after the heal, on a connection opened after it
            expect(hilo.stats()[segment]!.failedAttempts).toBe(failed);
            expect(proxy.accepted).toBeGreaterThan(acceptedAtHeal);
            // and every connection the blackhole swallowed is closed by hilo's side: none is left to wait on (the one
            // opened during the blackhole goes at the driver's connect timeout; the bound only caps a failing run)
            const deadline = Date.now() + 15_000;
            while (proxy.zombies > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
            expect(proxy.zombies).toBe(0);
          },
          60_000,
        );
      }

      it(
        'connections cut right after a reservation statement reached the server: every key is handed ' +
          'out once, across two processes',
        async () => {
          const segment = `cut_${sourceKind}`;
          const cutOne = await openGenerator({ blockSize: 5, adaptive: false, prefetchAt: false, timeoutMs: 3000 });
          const direct = await openGenerator(
            { blockSize: 5, adaptive: false, prefetchAt: false, timeoutMs: 3000 },
            true,
          );
          await cutOne.warm([segment]);
          const keys: number[] = [];
          let cuts = 0;
          for (let round = 0; round < 12; round++) {
            // skip 0–3 statements, so the cut lands on BEGIN, the read, the update or the COMMIT of a reservation
            const cut = proxy.cutAfterStatement(round % 4).then(() => cuts++);
            keys.push(...(await cutOne.reserve(segment, 7)));
            keys.push(...(await direct.reserve(segment, 7)));
            await Promise.race([cut, new Promise((resolve) => setTimeout(resolve, 50))]);
          }
          expect(cuts).toBeGreaterThanOrEqual(6);
          expect(new Set(keys).size).toBe(keys.length);
          expect(keys).toHaveLength(12 * 14);
        },
        60_000,
      );

      it('a refused port for 1.5 s (a database restarting): an awaited caller rides it out with the default retry budget', async () => {
        const segment = `restart_${sourceKind}`;
        // the default retry budget (10 s), with attempts abandoned after 2 s rather than 5: after the port comes
        // back, the oldest postgres.js sometimes leaves an attempt hanging on a dead connection until hilo's
        // timeout, and on a loaded CI machine two such 5 s waits once spent the whole budget (12.1 s)
        const hilo = await openGenerator({ blockSize: 10, adaptive: false, prefetchAt: false, timeoutMs: 2000 });
        const first = await hilo.reserve(segment, 10);
        proxy.refuse();
        proxy.cut();
        let healed = false;
        setTimeout(() => {
          proxy.heal();
          healed = true;
        }, 1500);
        const key = await hilo.next(segment);
        // the caller's wait ended because the port came back, not before (an ordering, not a duration: issue #52)
        expect(healed).toBe(true);
        expect(first).not.toContain(key);
        // the refusal reached hilo as a failed attempt, unless the driver's pool waited it out itself
        expect(hilo.stats()[segment]!.failedAttempts).toBeGreaterThanOrEqual(driver?.waitsOutRefusals ? 0 : 1);
      }, 30_000);

      it(
        'close() on a stalled link returns within closeTimeoutMs; what it could not give back is counted ' +
          'lost, and nothing is handed out after',
        async () => {
          const segment = `close_${sourceKind}`;
          const hilo = await openGenerator({ blockSize: 50, adaptive: false, prefetchAt: false, closeTimeoutMs: 400 });
          await hilo.warm([segment]);
          hilo.nextSync(segment);
          proxy.stall();
          // the link stays stalled until after close() resolved: what ends close() is closeTimeoutMs, never the link
          // (the test's timeout is the hang detector: issue #52)
          await hilo.close();
          expect(hilo.stats()[segment]!.keysLost).toBe(49);
          expect(() => hilo.nextSync(segment)).toThrow(/closed/i);
          proxy.cut();
        },
        30_000,
      );

      // Skip reason: the mariadb connector's pool.end() waits for a statement hung on a stalled link, and hilo cannot
      // reach its sockets; the README says so. Every other driver's pool runs this test.
      if (sourceKind === 'table' && (driver?.boundsClose ?? true)) {
        it(
          `a pool from ${driver ? driver.name : 'connect()'} closes within its close timeout while a statement ` +
            `hangs on a stalled link, and leaves no socket open`,
          async () => {
            const client = await openClient(proxy.url(db.url), { closeTimeoutMs: 300 });
            await client.query('select 1');
            proxy.stall();
            const stuck = client.query('select 2').then(
              () => undefined,
              (e: unknown) => e,
            );
            await new Promise((resolve) => setTimeout(resolve, 50));
            let stuckSettled = false;
            void stuck.then(() => (stuckSettled = true));
            // the stalled statement never ends: without the timeout close() would wait for ever (the test's timeout is
            // the hang detector; how long it takes is not asserted: issue #52). close() ends the statement, not the
            // other way round
            await client.close();
            expect(await stuck).toBeInstanceOf(Error);
            expect(stuckSettled).toBe(true);
            // the sockets go once the proxy sees them closed; the wait is a hang detector, not a bound
            const deadline = Date.now() + 20_000;
            while (proxy.connections > 0 && Date.now() < deadline)
              await new Promise((resolve) => setTimeout(resolve, 20));
            expect(proxy.connections).toBe(0);
          },
          30_000,
        );
      }

      it('warm() at start-up fails fast on a refused port instead of spending the retry budget', async () => {
        proxy.refuse();
        const hilo = await openGenerator({ blockSize: 10 });
        await expect(hilo.warm([`warm_${sourceKind}`])).rejects.toBeInstanceOf(HiLoSourceUnavailableError);
        // fast because it makes one attempt, not because of how long it took (issue #52)
        expect(hilo.stats()[`warm_${sourceKind}`]!.failedAttempts).toBe(1);
      }, 30_000);
    });
  }
}
