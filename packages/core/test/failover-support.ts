// What the failover suites share (failover.postgres.test.ts, failover.sync.postgres.test.ts, failover.mysql.test.ts):
// an application process as a key loop with a pool of its own, its recorded keys, and the key arithmetic the checks use.
import type { ReplicatedPostgres } from '@hilo/testing';
import type { HiLoEvent, HiLoGenerator, HiSource } from 'hilo-core';
import type mysql from 'mysql2/promise';
import pg from 'pg';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition()` holds (asked every 20 ms); rejects after `timeoutMs`, naming `what` and `state()`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  state: () => string = () => '',
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms ${state()}`.trim());
    await sleep(20);
  }
}

export function pool(url: string): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 2000 });
  p.on('error', () => undefined); // idle connections die with the primary
  return p;
}

export interface Handed {
  readonly key: number;
  readonly at: number;
}

/** Every app of the current test; {@link stopAppsAfterEach} stops them after it whatever happened. */
export const apps: App[] = [];

/** Registers the `afterEach` that stops every app of the test. */
export function stopAppsAfterEach(): void {
  afterEach(async () => {
    for (const app of apps.splice(0)) {
      app.halt();
      await app.hilo.close();
    }
  });
}

/** Where an app saves its rows: a PostgreSQL pool (`pg`) or a MariaDB one (`mysql2/promise`). */
export type RowPool = pg.Pool | mysql.Pool;

/** Inserts the row of `key` into `orders`; resolves `'duplicate'` when its primary key is taken already. */
async function save(db: RowPool, key: number, app: string): Promise<'saved' | 'duplicate'> {
  try {
    if (db instanceof pg.Pool) await db.query('insert into orders (id, app) values ($1, $2)', [key, app]);
    else await db.query('insert into orders (id, app) values (?, ?)', [key, app]);
    return 'saved';
  } catch (error) {
    const { code } = error as { code?: unknown };
    if (code === '23505' || code === 'ER_DUP_ENTRY') return 'duplicate';
    throw error;
  }
}

/** An application process: hands out keys in a loop and (with a pool) saves a row for each, once. */
export class App {
  readonly handed: Handed[] = [];
  readonly events: { readonly event: HiLoEvent; readonly at: number }[] = [];
  readonly duplicateSaves: number[] = [];
  saved = 0;
  /** Saves that failed for another reason than a taken key (the server was away), with their time. */
  readonly failedSaves: number[] = [];
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly hilo: HiLoGenerator,
    private readonly db: RowPool | undefined,
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
          if ((await save(this.db, key, this.name)) === 'saved') this.saved++;
          else this.duplicateSaves.push(key);
        } catch {
          this.failedSaves.push(performance.now());
          await sleep(20); // the save failed with the server: the request fails, its key is a gap
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

export function overlap(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(a);
  return b.filter((key) => set.has(key));
}

export function increasing(keys: readonly number[]): boolean {
  return keys.every((key, i) => i === 0 || key > keys[i - 1]!);
}

/** A source that cannot tell servers apart, as every source was before issue #40: the control. */
export function blind(source: HiSource): HiSource {
  return {
    description: source.description,
    prepare: (segment, signal) => source.prepare!(segment, signal),
    reserve: (segment, request) => source.reserve(segment, { size: request.size, signal: request.signal }),
  };
}

export async function createOrders(pair: ReplicatedPostgres): Promise<void> {
  await pair.query('primary', 'create table orders (id bigint primary key, app text not null)');
}
