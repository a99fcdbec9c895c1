/**
 * Failover with `synchronousStandby: true` (issue #40, item 4) on a real PostgreSQL primary with a synchronous
 * streaming standby: no key is handed out again after the standby is promoted, a standby cut off gives a bounded
 * typed error instead of a hang, and a server without a synchronous standby is refused at start. Also measures
 * what the option costs per reservation. Helpers as in failover.postgres.test.ts.
 */
import { describeReplication, type ReplicatedPostgres } from '@hilo/testing';
import {
  createHiLo,
  createHiLoGenerator,
  HiLoExhaustedError,
  HiLoSynchronousStandbyError,
  pgClient,
  sequenceSource,
  tableSource,
  type HiLoEvent,
  type HiLoGenerator,
  type HiSource,
  type SqlSourceKind,
} from 'hilo-core';
import pg from 'pg';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pool(url: string): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 2000 });
  p.on('error', () => undefined); // idle connections die with the primary
  return p;
}

interface Handed {
  readonly key: number;
  readonly at: number;
}

/** Every app of the current test, stopped after it whatever happened. */
const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.halt();
    await app.hilo.close();
  }
});

/** An application process: hands out keys in a loop and (with `table`) saves a row for each, once. */
class App {
  readonly handed: Handed[] = [];
  readonly events: { readonly event: HiLoEvent; readonly at: number }[] = [];
  readonly duplicateSaves: number[] = [];
  saved = 0;
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly hilo: HiLoGenerator,
    private readonly db: pg.Pool | undefined,
  ) {
    apps.push(this);
  }

  start(): this {
    this.loop = (async () => {
      while (this.running) {
        let key: number;
        try {
          key = await this.hilo.next('orders');
        } catch {
          await sleep(20); // the database is away: the request fails, the next one tries again
          continue;
        }
        this.handed.push({ key, at: performance.now() });
        if (this.db === undefined) {
          if (this.handed.length % 10 === 0) await sleep(1);
          continue;
        }
        try {
          await this.db.query('insert into orders (id, app) values ($1, $2)', [key, this.name]);
          this.saved++;
        } catch (error) {
          if ((error as { code?: unknown }).code === '23505') this.duplicateSaves.push(key);
          else await sleep(20); // the save failed with the server: the request fails, its key is a gap
        }
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Stops the loop without waiting for it (after a failure: a save may wait for a standby that is gone). */
  halt(): void {
    this.running = false;
  }

  keys(from = 0, to = Number.POSITIVE_INFINITY): number[] {
    return this.handed.filter((h) => h.at >= from && h.at < to).map((h) => h.key);
  }

  firstEvent(type: HiLoEvent['type']): number | undefined {
    return this.events.find((e) => e.event.type === type)?.at;
  }

  onEvent = (event: HiLoEvent) => this.events.push({ event, at: performance.now() });
}

function overlap(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(a);
  return b.filter((key) => set.has(key));
}

function increasing(keys: readonly number[]): boolean {
  return keys.every((key, i) => i === 0 || key > keys[i - 1]!);
}

/** A source that cannot tell servers apart, as every source was before issue #40. */
function blind(source: HiSource): HiSource {
  return {
    description: source.description,
    prepare: (segment, signal) => source.prepare!(segment, signal),
    reserve: (segment, request) => source.reserve(segment, { size: request.size, signal: request.signal }),
  };
}

async function createOrders(pair: ReplicatedPostgres): Promise<void> {
  await pair.query('primary', 'create table orders (id bigint primary key, app text not null)');
}

/**
 * Mean time of `n` reservations of one key each (no prefetch, no adaptive sizing), in ms: without the server's
 * identity (`blind`, hilo before issue #40), with it (the default), and with `synchronousStandby`.
 */
async function meanReservationMs(
  url: string,
  kind: SqlSourceKind,
  mode: 'blind' | 'identity' | 'synchronous',
  n: number,
) {
  const p = pool(url);
  const client = pgClient(p);
  const fixed = { blockSize: 1, adaptive: false, prefetchAt: false } as const;
  const hilo =
    mode === 'blind'
      ? createHiLoGenerator({
          source: blind(kind === 'sequence' ? sequenceSource(client, { increment: 1 }) : tableSource(client)),
          ...fixed,
        })
      : createHiLo({ client, source: kind, ...fixed, synchronousStandby: mode === 'synchronous' });
  await hilo.next('bench'); // prepare and check outside the measurement
  const started = performance.now();
  for (let i = 0; i < n; i++) await hilo.next('bench');
  const ms = (performance.now() - started) / n;
  await hilo.close();
  await p.end();
  return ms;
}

describeReplication('failover with a synchronous standby (synchronousStandby: true)', (replication) => {
  it('refuses to start on a server without a synchronous standby, naming the option and the fix', async () => {
    const pair = await replication.start();
    const p = pool(pair.url);
    try {
      for (const source of ['sequence', 'table'] as const) {
        const hilo = createHiLo({ client: pgClient(p), source, synchronousStandby: true });
        const error = (await hilo.warm(['orders']).catch((e: unknown) => e)) as Error;
        expect(error).toBeInstanceOf(HiLoSynchronousStandbyError);
        expect(error.message).toMatch(
          /`synchronousStandby: true`.*`synchronous_standby_names` is empty.*remove `synchronousStandby`/s,
        );
        await hilo.close();
      }
      expect(() => createHiLo({ client: pgClient(p), synchronousStandby: true, serverCheckMs: 1 })).toThrow(
        /serverCheckMs/,
      );
    } finally {
      await p.end();
    }
  }, 50_000);

  it.each<SqlSourceKind>(['sequence', 'table'])(
    '%s source: no key is handed out again across a failover, and a cut-off standby gives a bounded typed error',
    async (kind) => {
      const pair = await replication.start({ synchronousStandby: true });
      await createOrders(pair);
      const costs = {
        blindMs: await meanReservationMs(pair.url, kind, 'blind', 200),
        asyncMs: await meanReservationMs(pair.url, kind, 'identity', 200),
        syncMs: await meanReservationMs(pair.url, kind, 'synchronous', 200),
      };
      const pools = [pool(pair.url), pool(pair.url)];
      const [poolA, poolB] = pools as [pg.Pool, pg.Pool];
      try {
        const options = { source: kind, blockSize: 100, timeoutMs: 1000, retryBudgetMs: 3000 } as const;
        const a: App = new App(
          'A',
          createHiLo({ client: pgClient(poolA), ...options, synchronousStandby: true, onEvent: (e) => a.onEvent(e) }),
          poolA,
        ).start();
        await sleep(1500);

        pair.cutReplication();
        const cutAt = performance.now();
        // more keys than A holds: its next reservation waits for the standby, and A gives up within its budget
        const error = (await a.hilo.reserve('orders', 1_000_000).catch((e: unknown) => e)) as Error;
        const waitedMs = performance.now() - cutAt;
        expect(error).toBeInstanceOf(HiLoExhaustedError);
        expect(error.message).toMatch(/synchronousStandby/);
        expect(waitedMs).toBeLessThan(options.retryBudgetMs + options.timeoutMs + 1500);

        await pair.killPrimary();
        await pair.promoteStandby();
        pair.switchApplicationTo('standby');
        // the promoted server has no standby of its own: the option refuses it
        const strict = createHiLo({ client: pgClient(poolB), ...options, synchronousStandby: true });
        await expect(strict.warm(['orders'])).rejects.toThrow(HiLoSynchronousStandbyError);
        await strict.close();
        // the promoted server kept the old primary's synchronous_standby_names: no commit would return
        await pair.query('standby', `alter system set synchronous_standby_names = ''`);
        await pair.query('standby', 'select pg_reload_conf()');
        await sleep(300);
        const b = new App('B', createHiLo({ client: pgClient(poolB), ...options }), poolB).start();
        await sleep(3000);
        await Promise.all([a.stop(), b.stop()]);
        await Promise.all([a.hilo.close(), b.hilo.close()]);

        const reHanded = overlap(a.keys(), b.keys());
        process.stdout.write(
          `failover synchronous (${kind}): ${JSON.stringify({
            blindReservationMs: Number(costs.blindMs.toFixed(3)),
            asyncReservationMs: Number(costs.asyncMs.toFixed(3)),
            syncReservationMs: Number(costs.syncMs.toFixed(3)),
            cutStandbyErrorAfterMs: Math.round(waitedMs),
            keysA: a.handed.length,
            keysB: b.handed.length,
            reHandedByB: reHanded.length,
          })}\n`,
        );
        expect(a.handed.length).toBeGreaterThan(100);
        expect(b.handed.length).toBeGreaterThan(100);
        expect(reHanded).toEqual([]);
        expect(increasing(a.keys())).toBe(true);
        expect(a.duplicateSaves).toEqual([]);
        expect(b.duplicateSaves).toEqual([]);
      } finally {
        // a save still waiting for the cut-off standby keeps its connection: do not wait for it
        await Promise.all(pools.map((p) => Promise.race([p.end().catch(() => undefined), sleep(2000)])));
      }
    },
    50_000,
  );
});
