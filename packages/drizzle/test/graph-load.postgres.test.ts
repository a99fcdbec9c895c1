// Issue 55 for Drizzle on PostgreSQL: hilo.loadGraph(db, …) reads the tables' keys, columns and foreign keys from
// the Drizzle tables, loads by binary COPY on the app's own node-postgres pool, writes each key (and each child's
// parent key) back into the rows under their property names, and runs inside a Drizzle transaction in a savepoint
// of it. A bad value rolls everything back with HiLoGraphLoadError; drivers without a bulk path are refused.
import { describePostgres, runStatements } from '@hilo/testing';
import { entityKind, eq, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import { bigint, integer, jsonb, pgSchema, pgTable, text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';
import pg from 'pg';
import postgres from 'postgres';
import {
  HiLoConfigurationError,
  HiLoGraphLoadError,
  hiloDrizzle,
  type DrizzleGraphNode,
  type HiLoDrizzle,
} from 'hilo-drizzle';

function shopOf(hilo: HiLoDrizzle) {
  const orders = pgTable('orders', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
    reference: text('reference').notNull(),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    meta: jsonb('meta'),
  });
  const orderItems = pgTable('order_items', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('order_items')),
    orderId: bigint('order_id', { mode: 'number' })
      .notNull()
      .references(() => orders.id),
    sku: text('sku').notNull(),
    quantity: integer('quantity').notNull(),
  });
  const categories = pgSchema('shop').table('categories', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('categories')),
    parentId: bigint('parent_id', { mode: 'number' }).references((): AnyPgColumn => categories.id),
    name: text('name').notNull(),
  });
  const transfers = pgTable('transfers', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('transfers')),
    fromOrderId: bigint('from_order_id', { mode: 'number' }).references(() => orders.id),
    toOrderId: bigint('to_order_id', { mode: 'number' }).references(() => orders.id),
    note: text('note')
      .notNull()
      .$defaultFn(() => 'moved'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  });
  return { orders, orderItems, categories, transfers };
}
type Shop = ReturnType<typeof shopOf>;
type OrderRow = { id?: number; reference: string; placedAt: Date; meta?: unknown };
type ItemRow = { id?: number; orderId?: number; sku: string; quantity: number };

/** `count` orders of `items` items each, rows kept so that the test reads back what the load wrote into them. */
function ordersWithItems(shop: Shop, count: number, items: number, bad?: (o: number, i: number) => boolean) {
  const orders: { row: OrderRow; items: ItemRow[] }[] = Array.from({ length: count }, (_, o) => ({
    row: { reference: `R-${o}`, placedAt: new Date(Date.UTC(2026, 0, 1 + (o % 28))), meta: { o, tags: ['a'] } },
    items: Array.from({ length: items }, (_, i) => ({
      sku: `S-${o}-${i}`,
      quantity: bad?.(o, i) === true ? -1 : i + 1,
    })),
  }));
  async function* input(): AsyncGenerator<DrizzleGraphNode> {
    for (const order of orders) {
      yield {
        table: shop.orders,
        row: order.row,
        children: order.items.map((row) => ({ table: shop.orderItems, row })),
      };
    }
  }
  return { orders, input };
}

describePostgres('hilo-drizzle graph loads on PostgreSQL (node-postgres)', (db) => {
  let pool: pg.Pool;
  let hilo: HiLoDrizzle;
  let shop: Shop;
  let app: ReturnType<typeof drizzle>;
  const count = async (table: string): Promise<number> =>
    Number((await pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
    // the file's database is dropped (its connections ended) before this pool is
    pool.on('error', () => undefined);
    app = drizzle({ client: pool });
  });
  afterAll(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    await runStatements(db.url, [
      'drop table if exists order_items, transfers, orders',
      'drop schema if exists shop cascade',
      'create schema shop',
      'create table orders (id bigint primary key, reference text not null, placed_at timestamptz not null, meta jsonb)',
      `create table order_items (id bigint primary key, order_id bigint not null references orders (id),
         sku text not null, quantity int not null check (quantity > 0))`,
      `create table transfers (id bigint primary key, from_order_id bigint references orders (id),
         to_order_id bigint references orders (id), note text not null, created_at timestamptz not null default now())`,
      'create table shop.categories (id bigint primary key, parent_id bigint references shop.categories (id), name text not null)',
    ]);
    hilo = hiloDrizzle({ url: db.url, blockSize: 50 });
    shop = shopOf(hilo);
  });
  afterEach(async () => {
    await hilo.close();
  });

  it("loads orders with their items on the app's pool: keys written back under the property names, equal to the rows' ids", async () => {
    const { orders, input } = ordersWithItems(shop, 40, 3);
    const result = await hilo.loadGraph(app, { tables: [shop.orderItems, shop.orders], input: input(), batchRows: 50 });
    expect(result).toEqual({ items: 40, rows: { orders: 40, order_items: 120 } });

    const stored = await app.select().from(shop.orders);
    const storedItems = await app.select().from(shop.orderItems);
    expect(stored.map((row) => row.id).sort((a, b) => a - b)).toEqual(
      orders.map((order) => order.row.id!).sort((a, b) => a - b),
    );
    const byId = new Map(stored.map((row) => [row.id, row]));
    const itemsById = new Map(storedItems.map((row) => [row.id, row]));
    for (const order of orders) {
      expect(typeof order.row.id).toBe('number');
      expect(byId.get(order.row.id!)).toMatchObject({ reference: order.row.reference, meta: order.row.meta });
      expect(byId.get(order.row.id!)!.placedAt.getTime()).toBe(order.row.placedAt.getTime());
      for (const item of order.items) {
        expect(item.orderId).toBe(order.row.id);
        expect(itemsById.get(item.id!)).toEqual({
          id: item.id,
          orderId: order.row.id,
          sku: item.sku,
          quantity: item.quantity,
        });
      }
    }
  });

  it('loads a self-reference in a pgSchema table, nesting giving each child its parent', async () => {
    type Category = { id?: number; parentId?: number | null; name: string };
    const rows: Category[] = [];
    const tree = (name: string, depth: number): DrizzleGraphNode => {
      const row: Category = { name };
      rows.push(row);
      return {
        table: shop.categories,
        row,
        children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
      };
    };
    await hilo.loadGraph(app, { tables: [shop.categories], input: [tree('root', 3)], batchRows: 4 });
    const stored = new Map((await app.select().from(shop.categories)).map((row) => [row.id, row]));
    expect(stored.size).toBe(15);
    const byName = new Map(rows.map((row) => [row.name, row]));
    for (const row of rows) {
      const parent = byName.get(row.name.replace(/\.[ab]$/, ''));
      expect(stored.get(row.id!)).toEqual({
        id: row.id,
        name: row.name,
        parentId: row.name === 'root' ? null : parent!.id,
      });
      if (row.name !== 'root') expect(row.parentId).toBe(parent!.id);
    }
  });

  it('inside a Drizzle transaction: rolled back with it (no rows left), or committed with it', async () => {
    class RolledBack extends Error {}
    const rolledBack = ordersWithItems(shop, 5, 2);
    await expect(
      app.transaction(async (tx) => {
        await hilo.loadGraph(tx, { tables: [shop.orders, shop.orderItems], input: rolledBack.input() });
        // the transaction sees the rows its load wrote
        expect((await tx.select().from(shop.orderItems)).length).toBe(10);
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect([await count('orders'), await count('order_items')]).toEqual([0, 0]);

    const committed = ordersWithItems(shop, 5, 2);
    await app.transaction(async (tx) => {
      await tx.insert(shop.orders).values({ reference: 'before', placedAt: new Date(), id: await nextOrderId() });
      await hilo.loadGraph(tx, { tables: [shop.orders, shop.orderItems], input: committed.input() });
    });
    expect([await count('orders'), await count('order_items')]).toEqual([6, 10]);
    const [first] = committed.orders;
    const items = await app.select().from(shop.orderItems).where(eq(shop.orderItems.orderId, first!.row.id!));
    expect(items.map((item) => item.id).sort()).toEqual(first!.items.map((item) => item.id).sort());
  });
  const nextOrderId = async () => (await hilo.nextId(shop.orders)) as number;

  it('a bad value half-way rolls the whole load back and throws HiLoGraphLoadError naming the table', async () => {
    const { orders, input } = ordersWithItems(shop, 30, 3, (o, i) => o === 17 && i === 1);
    const error = await hilo
      .loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input(), batchRows: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'order_items', item: 17 });
    // the generator's key (a bigint on PostgreSQL), written into the row as the column's mode says
    expect(Number((error as HiLoGraphLoadError).key)).toBe(orders[17]!.items[1]!.id);
    expect((error as Error).message).toMatch(/order_items/);
    expect([await count('orders'), await count('order_items')]).toEqual([0, 0]);
  });

  it('a failed load inside a Drizzle transaction leaves the transaction as it was, to commit what else it did', async () => {
    const { input } = ordersWithItems(shop, 4, 2, (o) => o === 3);
    await app.transaction(async (tx) => {
      await tx.insert(shop.orders).values({ id: await nextOrderId(), reference: 'kept', placedAt: new Date() });
      await expect(
        hilo.loadGraph(tx, { tables: [shop.orders, shop.orderItems], input: input() }),
      ).rejects.toBeInstanceOf(HiLoGraphLoadError);
      await tx.insert(shop.orders).values({ id: await nextOrderId(), reference: 'kept too', placedAt: new Date() });
    });
    expect((await app.select().from(shop.orders)).map((row) => row.reference).sort()).toEqual(['kept', 'kept too']);
    expect(await count('order_items')).toBe(0);
  });

  it(
    "a child's `via` names the foreign key that takes its parent's key; $defaultFn fills a missing value, " +
      'a database default is refused',
    async () => {
      const placedAt = new Date();
      const transfer: { id?: number; fromOrderId?: number; toOrderId?: number; createdAt: Date } = {
        createdAt: placedAt,
      };
      const order: OrderRow = { reference: 'to', placedAt };
      const tables = [shop.orders, shop.transfers];
      await hilo.loadGraph(app, {
        tables,
        input: [
          { table: shop.orders, row: order, children: [{ table: shop.transfers, row: transfer, via: 'toOrderId' }] },
        ],
      });
      expect(transfer.toOrderId).toBe(order.id);
      expect(await app.select().from(shop.transfers)).toEqual([
        { id: transfer.id, fromOrderId: null, toOrderId: order.id, note: 'moved', createdAt: placedAt },
      ]);

      // two references to orders and no via: the load cannot tell which one takes the key
      const ambiguous = hilo.loadGraph(app, {
        tables,
        input: [
          { table: shop.orders, row: { reference: 'x', placedAt }, children: [{ table: shop.transfers, row: {} }] },
        ],
      });
      await expect(ambiguous).rejects.toBeInstanceOf(HiLoConfigurationError);
      await expect(ambiguous).rejects.toThrow(/from_order_id.*to_order_id/s);
      const unknownVia = hilo.loadGraph(app, {
        tables,
        input: [
          {
            table: shop.orders,
            row: { reference: 'x', placedAt },
            children: [{ table: shop.transfers, row: {}, via: 'orderId' }],
          },
        ],
      });
      await expect(unknownVia).rejects.toThrow(/`via: 'orderId'` names no column of table "transfers"/);
      // createdAt's default is now(), which only the database computes: a row without it is refused, naming it
      const databaseDefault = hilo.loadGraph(app, {
        tables: [shop.transfers],
        input: [{ table: shop.transfers, row: {} }],
      });
      await expect(databaseDefault).rejects.toBeInstanceOf(HiLoConfigurationError);
      await expect(databaseDefault).rejects.toThrow(/"transfers" has no createdAt.*computed by the database/);
      expect([await count('orders'), await count('transfers')]).toEqual([1, 1]);
    },
  );

  it('refuses what it cannot load, with typed errors naming the fix', async () => {
    const sqlJs = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      const onPostgresJs = drizzlePostgresJs({ client: sqlJs });
      const refused = hilo.loadGraph(onPostgresJs, { tables: [shop.orders], input: [] });
      await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
      await expect(refused).rejects.toThrow(/PostgresJs.*node-postgres.*pg Pool/s);
    } finally {
      await sqlJs.end();
    }
    // a transaction whose connection is not where Drizzle keeps it
    class Moved {
      static readonly [entityKind] = 'NodePgTransaction';
    }
    await expect(hilo.loadGraph(new Moved(), { tables: [shop.orders], input: [] })).rejects.toThrow(
      /cannot find the connection of a NodePgTransaction in drizzle-orm .*loadGraph\(db/s,
    );
    await expect(hilo.loadGraph({}, { tables: [shop.orders], input: [] })).rejects.toThrow(/not a Drizzle database/);

    const plain = pgTable('plain', { id: bigint('id', { mode: 'number' }).primaryKey() });
    await expect(hilo.loadGraph(app, { tables: [plain], input: [] })).rejects.toThrow(
      /table "plain" has no hilo key column.*\$defaultFn\(hilo\.key\('plain'\)\)/,
    );
    const outside = hilo.loadGraph(app, {
      tables: [shop.orders],
      input: [{ table: shop.orderItems, row: { sku: 'x', quantity: 1 } }],
    });
    await expect(outside).rejects.toThrow(
      /Input item 0 names table "order_items", which is not in `tables` \("orders"\)/,
    );
    const expression = hilo.loadGraph(app, {
      tables: [shop.orders],
      input: [{ table: shop.orders, row: { reference: 'x', placedAt: sql`now()` } }],
    });
    await expect(expression).rejects.toThrow(/orders\.placedAt is a SQL expression/);
    expect(await count('orders')).toBe(0);
  });
});

/** The README's "Graph loads" block as written, in a scope of its own (it names its own `db` and `hilo`). */
async function readmeGraphLoads(): Promise<void> {
  // --- README (hilo-drizzle, "Graph loads")
  const hilo = hiloDrizzle({ url: process.env['DATABASE_URL']!, blockSize: 1000 });
  const orders = pgTable('orders', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
    reference: text('reference').notNull(),
  });
  const orderItems = pgTable('order_items', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('order_items')),
    orderId: bigint('order_id', { mode: 'number' })
      .notNull()
      .references(() => orders.id),
    sku: text('sku').notNull(),
    quantity: integer('quantity').notNull(),
  });
  const categories = pgTable('categories', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('categories')),
    parentId: bigint('parent_id', { mode: 'number' }).references((): AnyPgColumn => categories.id),
    name: text('name').notNull(),
  });
  const db = drizzle({ client: new pg.Pool({ connectionString: process.env['DATABASE_URL'] }) });

  async function* feed(): AsyncGenerator<DrizzleGraphNode> {
    for (let n = 0; n < 10_000; n++) {
      yield {
        table: orders,
        row: { reference: `A-${n}` },
        children: [
          { table: orderItems, row: { sku: 'TEA', quantity: 2 } },
          { table: orderItems, row: { sku: 'CAKE', quantity: 1 } },
        ],
      };
    }
  }
  const result = await hilo.loadGraph(db, { tables: [orders, orderItems], input: feed() });
  console.log(result.rows); // { orders: 10000, order_items: 20000 }

  // a tree: each child gets its parent's key in its foreign key to the same table
  const root = { name: 'Tea' } as { id?: number; name: string };
  const green = { name: 'Green tea' } as { id?: number; parentId?: number; name: string };
  await hilo.loadGraph(db, {
    tables: [categories],
    input: [{ table: categories, row: root, children: [{ table: categories, row: green }] }],
  });
  console.log(root.id, green.parentId === root.id); // the keys are written back into your rows: e.g. 4711 true

  // inside your transaction, in a savepoint of it: your commit or rollback decides for the rows
  await db.transaction(async (tx) => {
    try {
      await hilo.loadGraph(tx, { tables: [orders, orderItems], input: feed() });
    } catch (error) {
      if (!(error instanceof HiLoGraphLoadError)) throw error;
      console.log(`nothing of the load is left: ${error.table}, item ${error.item}: ${error.message}`);
    }
  });
  // --- end of README
  await hilo.close();
  await db.$client.end();
}

describePostgres('hilo-drizzle graph loads: the README', (db) => {
  it('runs as written: the feed, the tree, and a load inside a transaction', async () => {
    await runStatements(db.url, [
      'create table orders (id bigint primary key, reference text not null)',
      `create table order_items (id bigint primary key, order_id bigint not null references orders (id),
         sku text not null, quantity int not null)`,
      'create table categories (id bigint primary key, parent_id bigint references categories (id), name text not null)',
    ]);
    const logged: unknown[][] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void logged.push(args);
    const url = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = db.url;
    try {
      await readmeGraphLoads();
    } finally {
      console.log = log;
      if (url === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = url;
    }
    expect(logged[0]).toEqual([{ orders: 10_000, order_items: 20_000 }]);
    expect(logged[1]![1]).toBe(true);
    expect(logged[2]).toBeUndefined();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const counts = await pool.query<{ o: string; i: string; c: string }>(
      'select (select count(*) from orders) as o, (select count(*) from order_items) as i, (select count(*) from categories) as c',
    );
    await pool.end();
    expect(counts.rows[0]).toEqual({ o: '20000', i: '40000', c: '2' });
  });
});
