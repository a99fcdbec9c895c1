import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'hilo-core';
import { describeDatabase, randomName, type TestDatabase } from '../databases.ts';
import { workerMapping } from '../worker-mapping.ts';

/** Every key of one graph: a customer, its orders and each order's items. */
export interface GraphKeys {
  readonly customer: bigint;
  readonly orders: ReadonlyArray<{ readonly id: bigint; readonly items: readonly bigint[] }>;
}

/** Every key and foreign key of the three shop tables, as the database holds them. */
export interface StoredRows {
  readonly customers: readonly bigint[];
  readonly orders: ReadonlyArray<{ readonly id: bigint; readonly customer: bigint }>;
  readonly items: ReadonlyArray<{ readonly id: bigint; readonly order: bigint }>;
}

/**
 * One application instance on the shop schema — customers, orders (→ customer) and order_items (→ order),
 * all with hi/lo keys — written with the ORM under test. `G` is the ORM's in-memory graph (entities,
 * or the data of a nested create).
 */
export interface AdapterShop<G = unknown> {
  /**
   * Builds one customer with `orders` orders of `items` items each, in memory, the way an application
   * would (`create()`, `em.create()`, keys drawn for a nested create). It may wait for hilo (e.g. to put
   * enough keys in memory), but must send no statement to the shop's tables.
   */
  build(orders: number, items: number): Promise<G>;
  /** The keys the graph carries now. */
  keysOf(graph: G): GraphKeys;
  /**
   * Writes the graph in one transaction. `inside`, when given, runs in that transaction after the writes;
   * when it throws, the transaction must roll back and `persist` reject with its error.
   */
  persist(graph: G, inside?: () => void): Promise<void>;
  /** Reads every key and foreign key of the three tables from the database (not from an identity map). */
  rows(): Promise<StoredRows>;
  /** Loads every customer with its orders and their items through the ORM; returns how many entities it loaded. */
  load(): Promise<number>;
  /** How many keys hilo's generator has handed out so far, over all segments (`stats()[s].keysIssued`). */
  keysIssued(): Promise<number>;
  /** How many statements the ORM has sent to the shop's tables so far (hilo's own reservations do not count). */
  statementsSent(): number;
  /** Closes the ORM and hilo. */
  close(): Promise<void>;
}

/** What an ORM adapter provides to run {@link runAdapterConformance}. */
export interface AdapterHarness<G = unknown> {
  /** Title of the describe block, e.g. `typeorm on postgres`. */
  readonly name: string;
  /** Which database the adapter runs on; `sqlite` gets a file in a fresh temporary folder (`url` is its path). */
  readonly kind: 'postgres' | 'mysql' | 'sqlite';
  /** Creates the shop tables (and whatever else hilo needs) in the fresh database at `url`. Called once. */
  prepare(url: string): Promise<void>;
  /**
   * Opens an application instance on the prepared database; each call gets a generator of its own, as a new
   * process would. `options` are hilo options to add to the harness's own (the store-behind tests pass
   * `onStoreBehind: 'lift'`).
   */
  open(url: string, options?: ConformanceHiLoOptions): Promise<AdapterShop<G>>;
  /**
   * A child-process script run with `node --import tsx <script> <json>`, where `<json>` is
   * `{ ...spec, url, orders }`.
   * It opens its own ORM with hilo on `url` (prepared), inserts one customer and `orders` orders for it
   * through the ORM in several flushes, and prints the orders' keys as a JSON array (numbers or strings).
   * With `"leaveHiloOpen": true` in `<json>` it then ends only its ORM's connection or pool, never hilo (as a short
   * script that forgets hilo's `close()` does), wherever the adapter lets hilo be closed apart from the ORM; where
   * closing the ORM closes hilo (TypeORM's `destroy()`, MikroORM's `close()`), it closes the ORM as usual.
   */
  readonly worker: {
    readonly script: string;
    /** Settings the script needs besides `url` and `orders` (e.g. the database kind). */
    readonly spec?: Record<string, unknown>;
    /** tsconfig for tsx (decorator settings, path mappings), passed as `TSX_TSCONFIG_PATH`. */
    readonly tsconfig?: string;
  };
}

/** hilo options the conformance suite adds to a harness's own when it opens an instance. */
export interface ConformanceHiLoOptions {
  readonly onStoreBehind?: 'error' | 'lift';
}

const WORKER_ORDERS = 40;
const ROLLBACK_MESSAGE = 'business rule failed: roll back';

type Table = 'customers' | 'orders' | 'items';
const TABLES: readonly Table[] = ['customers', 'orders', 'items'];
/** Keys by table: hi/lo keys are unique per segment, so two tables may hold the same number. */
type KeysByTable = Record<Table, bigint[]>;

const byTable = (keys: GraphKeys): KeysByTable => ({
  customers: [keys.customer],
  orders: keys.orders.map((o) => o.id),
  items: keys.orders.flatMap((o) => o.items),
});
const sorted = (keys: Iterable<bigint>): bigint[] => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const storedByTable = (rows: StoredRows): KeysByTable => ({
  customers: [...rows.customers],
  orders: rows.orders.map((o) => o.id),
  items: rows.items.map((i) => i.id),
});
function append(into: KeysByTable, keys: KeysByTable): void {
  for (const table of TABLES) into[table].push(...keys[table]);
}
/** Keys of `keys` that are also in `other`, table by table (empty lists when none). */
function common(keys: KeysByTable, other: KeysByTable): KeysByTable {
  const result: KeysByTable = { customers: [], orders: [], items: [] };
  for (const table of TABLES) {
    const set = new Set(other[table]);
    result[table] = keys[table].filter((key) => set.has(key));
  }
  return result;
}
/** Keys of `keys` that `from` lacks, table by table. */
function missing(keys: KeysByTable, from: KeysByTable): KeysByTable {
  const result: KeysByTable = { customers: [], orders: [], items: [] };
  for (const table of TABLES) {
    const set = new Set(from[table]);
    result[table] = keys[table].filter((key) => !set.has(key));
  }
  return result;
}
/** Keys that occur more than once, table by table. */
function duplicates(keys: KeysByTable): KeysByTable {
  const result: KeysByTable = { customers: [], orders: [], items: [] };
  for (const table of TABLES) result[table] = keys[table].filter((key, i, list) => list.indexOf(key) !== i);
  return result;
}
/** What `common`, `missing` and `duplicates` return when all is well. */
const none: KeysByTable = { customers: [], orders: [], items: [] };

/**
 * How long a worker may run before it counts as hung and is killed: far above what load makes a run take (a worker
 * of 40 orders took over 45 s here, two at once beside the test process at load 24 on 2 cores, and one of 3 orders
 * 119 s at load 55).
 */
const WORKER_HANG_MS = 240_000;

function runWorker(
  harness: AdapterHarness,
  url: string,
  orders: number,
  extra: Record<string, unknown> = {},
  hangMs = WORKER_HANG_MS,
): Promise<bigint[]> {
  // a compatibility Jest project's module mapping (jest.config.ts globals), for the worker too
  const mapping = workerMapping();
  const env = { ...process.env, ...mapping.env };
  if (harness.worker.tsconfig) env['TSX_TSCONFIG_PATH'] = harness.worker.tsconfig;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      ...mapping.args,
      '--no-warnings',
      harness.worker.script,
      JSON.stringify({ ...harness.worker.spec, ...extra, url, orders }),
    ],
    {
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, hangMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (hung) {
        return reject(
          new Error(
            `worker ${harness.worker.script} did not exit within ${hangMs} ms; ` +
              (stdout === '' ? 'it printed nothing yet (slow, or stuck before its end)' : `it printed ${stdout}, so `) +
              (stdout === '' ? '' : 'something keeps it alive after its work'),
          ),
        );
      }
      if (code !== 0) return reject(new Error(`worker ${harness.worker.script} failed (${code ?? signal}): ${stderr}`));
      try {
        resolve((JSON.parse(stdout) as Array<number | string>).map((key) => BigInt(key)));
      } catch {
        reject(new Error(`worker ${harness.worker.script} printed no JSON array: ${stdout}\n${stderr}`));
      }
    });
  });
}

/** Opens a new instance (with `options`), builds and persists one graph with it, closes it; its keys by table. */
async function firstGraph(
  harness: AdapterHarness,
  url: string,
  options?: ConformanceHiLoOptions,
): Promise<KeysByTable> {
  const shop = await harness.open(url, options);
  try {
    const graph = await shop.build(1, 2);
    await shop.persist(graph);
    return byTable(shop.keysOf(graph));
  } finally {
    await shop.close();
  }
}

/** The `code` of an error and of every error in its `cause` chain (adapters may wrap hilo's error). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/**
 * Sets every hi store of the database back to its start (`'set back'`: sequences restart at 1, hi rows at 1) or
 * drops it (`'drop'`), as a restore or reset would, whatever source the adapter uses: the `*_hilo_seq`
 * sequences and the `hilo_segments` table. Resolves with how many stores it changed.
 */
async function onHiStore(kind: AdapterHarness['kind'], url: string, what: 'set back' | 'drop'): Promise<number> {
  const client = await connect(kind === 'sqlite' ? `sqlite:${url}` : url);
  try {
    const sequences =
      kind === 'postgres'
        ? await client.query<{ name: string }>(
            `select relname as name from pg_class where relkind = 'S' and relname like '%\\_hilo\\_seq'`,
          )
        : kind === 'mysql'
          ? await client.query<{ name: string }>(
              `select table_name as name from information_schema.tables where table_schema = database() ` +
                `and table_type = 'SEQUENCE' and table_name like '%\\_hilo\\_seq'`,
            )
          : { rows: [] };
    const quote = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
    let changed = 0;
    for (const { name } of sequences.rows) {
      await client.query(
        what === 'drop' ? `drop sequence ${quote(name)}` : `alter sequence ${quote(name)} restart with 1`,
      );
      changed++;
    }
    const table =
      kind === 'postgres'
        ? `select 1 as found from pg_class where relname = 'hilo_segments' and relkind = 'r'`
        : kind === 'mysql'
          ? `select 1 as found from information_schema.tables where table_schema = database() and table_name = 'hilo_segments'`
          : `select 1 as found from sqlite_master where type = 'table' and name = 'hilo_segments'`;
    if ((await client.query(table)).rows.length > 0) {
      await client.query(what === 'drop' ? 'drop table hilo_segments' : 'update hilo_segments set next_value = 1');
      changed++;
    }
    return changed;
  } finally {
    await client.close();
  }
}

function describeSqliteFile(title: string, body: (db: { url: string }) => void): void {
  const handle = { url: '' };
  let dir = '';
  describe(title, () => {
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'hilo-adapter-'));
      handle.url = join(dir, `${randomName()}.db`);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    body(handle);
  });
}

/**
 * The adapter conformance suite: run it once per ORM × database, with a small {@link AdapterHarness}.
 * Proves that keys exist before anything is written and the stored foreign keys use them, that a
 * rolled-back transaction's keys are never stored nor handed out again, that two OS processes and the
 * test process writing at once share no key, and that loading entities draws no key.
 *
 * @example
 * ```ts
 * runAdapterConformance(typeormHarness('postgres'));
 * ```
 */
export function runAdapterConformance<G>(harness: AdapterHarness<G>): void {
  const body = (db: { url: string }) => {
    let shop: AdapterShop<G>;

    beforeAll(async () => {
      await harness.prepare(db.url);
      shop = await harness.open(db.url);
    });
    afterAll(async () => {
      await shop?.close();
    });

    it('assigns keys before flush', async () => {
      const before = shop.statementsSent();
      const graph = await shop.build(3, 4);
      const keys = shop.keysOf(graph);
      expect(shop.statementsSent()).toBe(before);
      const tables = byTable(keys);
      expect([tables.customers.length, tables.orders.length, tables.items.length]).toEqual([1, 3, 12]);
      for (const key of Object.values(tables).flat()) expect(key).toBeGreaterThan(0n);
      expect(duplicates(tables)).toEqual(none);

      await shop.persist(graph);
      expect(shop.statementsSent()).toBeGreaterThan(before);
      // writing kept the keys the graph had
      expect(shop.keysOf(graph)).toEqual(keys);
      const rows = await shop.rows();
      expect(rows.customers).toContain(keys.customer);
      const orders = rows.orders.filter((o) => o.customer === keys.customer);
      expect(sorted(orders.map((o) => o.id))).toEqual(sorted(tables.orders));
      for (const order of keys.orders) {
        expect(sorted(rows.items.filter((i) => i.order === order.id).map((i) => i.id))).toEqual(sorted(order.items));
      }
    });

    it('keys survive a rolled-back transaction', async () => {
      const graph = await shop.build(2, 3);
      const rolledBack = byTable(shop.keysOf(graph));
      await expect(
        shop.persist(graph, () => {
          throw new Error(ROLLBACK_MESSAGE);
        }),
      ).rejects.toThrow(ROLLBACK_MESSAGE);
      expect(common(rolledBack, storedByTable(await shop.rows()))).toEqual(none);

      // later keys, from this instance and from a new one (a restart), never repeat a rolled-back key
      const later: KeysByTable = { customers: [], orders: [], items: [] };
      for (let n = 0; n < 3; n++) {
        const next = await shop.build(2, 3);
        append(later, byTable(shop.keysOf(next)));
        await shop.persist(next);
      }
      const restarted = await harness.open(db.url);
      try {
        for (let n = 0; n < 2; n++) {
          const next = await restarted.build(2, 3);
          append(later, byTable(restarted.keysOf(next)));
          await restarted.persist(next);
        }
      } finally {
        await restarted.close();
      }
      expect(duplicates(later)).toEqual(none);
      expect(common(later, rolledBack)).toEqual(none);
      expect(missing(later, storedByTable(await shop.rows()))).toEqual(none);
    });

    // DESIGN rule 12: a serverless function, a cron job or a script ends its ORM and is done; neither hilo's
    // server check nor its idle connection may keep the process alive. One of the two workers is such a script: it
    // ends its ORM and never closes hilo, so one pair of processes proves both (each worker costs seconds to start,
    // in every database and every release of every ORM). The bound only detects a hang: workers exit within seconds
    it('no duplicates across processes, and a process that ends its ORM but not hilo exits by itself', async () => {
      let running = 2;
      const workers = [{}, { leaveHiloOpen: true }].map((extra) =>
        runWorker(harness as AdapterHarness, db.url, WORKER_ORDERS, extra).finally(() => {
          running--;
        }),
      );
      for (const w of workers) void w.catch(() => undefined);
      // the test process writes while the workers do
      const mine: bigint[] = [];
      const deadline = Date.now() + WORKER_HANG_MS + 5_000;
      for (let round = 0; running > 0 || round < 3; round++) {
        if (Date.now() > deadline) throw new Error('the workers did not finish');
        const graph = await shop.build(2, 1);
        mine.push(...shop.keysOf(graph).orders.map((o) => o.id));
        await shop.persist(graph);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const theirs = await Promise.all(workers);
      for (const keys of theirs) expect(keys).toHaveLength(WORKER_ORDERS);
      const all = [...mine, ...theirs.flat()];
      expect(all.filter((key, i) => all.indexOf(key) !== i)).toEqual([]);
      const stored = new Set((await shop.rows()).orders.map((o) => o.id));
      expect(all.filter((key) => !stored.has(key))).toEqual([]);
    }, 300_000); // WORKER_HANG_MS, and time for the test's own work

    it('loading consumes no keys', async () => {
      await shop.persist(await shop.build(2, 2));
      const issued = await shop.keysIssued();
      const loaded = await shop.load();
      expect(loaded).toBeGreaterThanOrEqual(1 + 2 + 2 * 2);
      expect(await shop.keysIssued()).toBe(issued);
      // the counter counts: a new graph of 3 entities draws 3 keys
      await shop.build(1, 1);
      expect(await shop.keysIssued()).toBe(issued + 3);
    });

    // The hi store falls behind the rows (a restore, a reset, rows copied without sequence positions) while
    // every instance is stopped: a new instance, which has no memory of what was handed out, must find out
    // from the rows before its first key. (An instance that kept running holds blocks the rows do not show
    // yet; no check on the rows can see those, so the shared instance stops first and starts again after.)
    it('a new instance refuses a hi store set back behind the stored rows, and lifts it only when told', async () => {
      await shop.persist(await shop.build(1, 2));
      const stored = storedByTable(await shop.rows());
      await shop.close();
      try {
        expect(await onHiStore(harness.kind, db.url, 'set back')).toBeGreaterThan(0);

        const refused = await firstGraph(harness, db.url).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(codesOf(refused)).toContain('HILO_STORE_BEHIND');

        const lifted = await firstGraph(harness, db.url, { onStoreBehind: 'lift' });
        expect(common(lifted, stored)).toEqual(none);
        // the store is above the rows again: an instance with the default setting (refuse) starts
        const after = await firstGraph(harness, db.url);
        expect(common(after, stored)).toEqual(none);
        expect(common(after, lifted)).toEqual(none);
      } finally {
        shop = await harness.open(db.url);
      }
    });

    it('a new instance re-creates a dropped hi store above the stored rows, not at 1', async () => {
      await shop.persist(await shop.build(1, 2));
      const stored = storedByTable(await shop.rows());
      await shop.close();
      try {
        expect(await onHiStore(harness.kind, db.url, 'drop')).toBeGreaterThan(0);
        const keys = await firstGraph(harness, db.url);
        for (const table of TABLES) {
          const largest = stored[table].reduce((a, b) => (a > b ? a : b), 0n);
          for (const key of keys[table]) expect([table, key > largest]).toEqual([table, true]);
        }
      } finally {
        shop = await harness.open(db.url);
      }
    });
  };

  const title = `adapter conformance: ${harness.name}`;
  if (harness.kind === 'sqlite') describeSqliteFile(title, body);
  else describeDatabase(harness.kind, title, (db: TestDatabase) => body(db));
}
