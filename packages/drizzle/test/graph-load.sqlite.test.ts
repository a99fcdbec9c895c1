// Issue 55 for Drizzle on SQLite: hilo.loadGraph(db, …) with better-sqlite3 (prepared multi-row INSERTs in one
// transaction), values translated as Drizzle translates them (boolean, JSON and timestamp modes), keys and parent
// keys written back under the property names; a refused row rolls everything back with HiLoGraphLoadError. Drizzle's
// better-sqlite3 transactions are synchronous, so a load inside one is refused; a transaction begun on the database
// (db.run(sql`begin`)) takes the load in a savepoint, decided by its commit or rollback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  HiLoConfigurationError,
  HiLoGraphLoadError,
  hiloDrizzle,
  type DrizzleGraphNode,
  type HiLoDrizzle,
} from 'hilo-drizzle';

function shopOf(hilo: HiLoDrizzle) {
  const orders = sqliteTable('orders', {
    id: integer('id').primaryKey().$defaultFn(hilo.key('orders')),
    reference: text('reference').notNull(),
    paid: integer('paid', { mode: 'boolean' }).notNull(),
    placedAt: integer('placed_at', { mode: 'timestamp' }).notNull(),
    meta: text('meta', { mode: 'json' }),
  });
  const orderItems = sqliteTable('order_items', {
    id: integer('id').primaryKey().$defaultFn(hilo.key('order_items')),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    sku: text('sku').notNull(),
    quantity: integer('quantity').notNull(),
  });
  const categories = sqliteTable('categories', {
    id: integer('id').primaryKey().$defaultFn(hilo.key('categories')),
    parentId: integer('parent_id').references((): AnySQLiteColumn => categories.id),
    name: text('name').notNull(),
  });
  return { orders, orderItems, categories };
}
type Shop = ReturnType<typeof shopOf>;
type OrderRow = { id?: number; reference: string; paid: boolean; placedAt: Date; meta: unknown };
type ItemRow = { id?: number; orderId?: number; sku: string; quantity: number };

function ordersWithItems(shop: Shop, count: number, items: number, bad?: (o: number, i: number) => boolean) {
  const orders = Array.from({ length: count }, (_, o): { row: OrderRow; items: ItemRow[] } => ({
    row: {
      reference: `R-${o}`,
      paid: o % 2 === 0,
      placedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, o)),
      meta: { o },
    },
    items: Array.from({ length: items }, (_, i): ItemRow => ({
      sku: `S-${o}-${i}`,
      quantity: bad?.(o, i) ? -1 : i + 1,
    })),
  }));
  const input = (): DrizzleGraphNode[] =>
    orders.map((order) => ({
      table: shop.orders,
      row: order.row,
      children: order.items.map((row) => ({ table: shop.orderItems, row })),
    }));
  return { orders, input };
}

describe('hilo-drizzle graph loads on SQLite (better-sqlite3)', () => {
  let dir: string;
  let sqlite: Database.Database;
  let app: ReturnType<typeof drizzle>;
  let hilo: HiLoDrizzle;
  let shop: Shop;
  const count = (table: string): number =>
    (sqlite.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-graph-'));
    const file = join(dir, 'shop.db');
    sqlite = new Database(file);
    sqlite.pragma('foreign_keys = on');
    sqlite.exec(`create table orders (id integer primary key, reference text not null, paid integer not null,
                   placed_at integer not null, meta text);
                 create table order_items (id integer primary key, order_id integer not null references orders (id),
                   sku text not null, quantity integer not null check (quantity > 0));
                 create table categories (id integer primary key, parent_id integer references categories (id),
                   name text not null)`);
    app = drizzle({ client: sqlite });
    hilo = hiloDrizzle({ url: `sqlite:${file}`, blockSize: 500 });
    shop = shopOf(hilo);
  });
  afterEach(async () => {
    await hilo.close();
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("loads orders with their items: keys written back, equal to the rows' ids, values as Drizzle maps them", async () => {
    const { orders, input } = ordersWithItems(shop, 20, 3);
    // the keys a load of more than one batch needs, in memory first: SQLite has one writer, the load's transaction
    await hilo.ensure(shop.orders, 20);
    await hilo.ensure(shop.orderItems, 60);
    const result = await hilo.loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input(), batchRows: 25 });
    expect(result).toEqual({ items: 20, rows: { orders: 20, order_items: 60 } });
    const stored = new Map(
      app
        .select()
        .from(shop.orders)
        .all()
        .map((row) => [row.id, row]),
    );
    const items = new Map(
      app
        .select()
        .from(shop.orderItems)
        .all()
        .map((row) => [row.id, row]),
    );
    for (const order of orders) {
      expect(stored.get(order.row.id!)).toEqual(order.row);
      for (const item of order.items) {
        expect(item.orderId).toBe(order.row.id);
        expect(items.get(item.id!)).toEqual(item);
      }
    }
  });

  it('loads a self-reference, nesting giving each child its parent', async () => {
    const rows: { id?: number; parentId?: number; name: string }[] = [];
    const tree = (name: string, depth: number): DrizzleGraphNode => {
      const row = { name };
      rows.push(row);
      return {
        table: shop.categories,
        row,
        children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
      };
    };
    const root = tree('root', 2);
    await hilo.ensure(shop.categories, rows.length);
    await hilo.loadGraph(app, { tables: [shop.categories], input: [root] });
    const stored = new Map(
      app
        .select()
        .from(shop.categories)
        .all()
        .map((row) => [row.id, row]),
    );
    const byName = new Map(rows.map((row) => [row.name, row]));
    expect(stored.size).toBe(7);
    for (const row of rows) {
      const parentId = row.name === 'root' ? null : byName.get(row.name.replace(/\.[ab]$/, ''))!.id;
      expect(stored.get(row.id!)).toEqual({ id: row.id, name: row.name, parentId });
    }
  });

  it('a refused row half-way rolls the whole load back and throws HiLoGraphLoadError naming the table', async () => {
    const { orders, input } = ordersWithItems(shop, 10, 3, (o, i) => o === 6 && i === 0);
    await hilo.ensure(shop.orders, 10);
    await hilo.ensure(shop.orderItems, 30);
    const error = await hilo
      .loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'order_items', item: 6 });
    expect(Number((error as HiLoGraphLoadError).key)).toBe(orders[6]!.items[0]!.id);
    expect([count('orders'), count('order_items')]).toEqual([0, 0]);
  });

  it('in a transaction begun on the database: a savepoint of it, rolled back or committed with it', async () => {
    await hilo.warm([shop.orders, shop.orderItems]);
    app.run(sql`begin`);
    await hilo.loadGraph(app, { tables: [shop.orders, shop.orderItems], input: ordersWithItems(shop, 3, 2).input() });
    expect(count('order_items')).toBe(6);
    app.run(sql`rollback`);
    expect([count('orders'), count('order_items')]).toEqual([0, 0]);

    app.run(sql`begin`);
    await hilo.loadGraph(app, { tables: [shop.orders, shop.orderItems], input: ordersWithItems(shop, 3, 2).input() });
    app.run(sql`commit`);
    expect([count('orders'), count('order_items')]).toEqual([3, 6]);
  });

  it('refuses at once, naming ensure(), a batch whose keys are not in memory (the load holds the write lock)', async () => {
    const { input } = ordersWithItems(shop, 5, 2);
    await hilo.ensure(shop.orders, 5);
    const refused = hilo.loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input() });
    await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(refused).rejects.toThrow(
      /needs 10 keys of segment "order_items" and 0 are in memory.*await hilo\.ensure\(table, rows\)/s,
    );
    expect([count('orders'), count('order_items')]).toEqual([0, 0]);
  });

  it('refuses a Drizzle better-sqlite3 transaction (synchronous), naming what to pass instead', async () => {
    let refused: Promise<unknown> | undefined;
    app.transaction((tx) => {
      refused = hilo.loadGraph(tx, { tables: [shop.orders], input: [] });
    });
    await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(refused).rejects.toThrow(/synchronous.*Pass the database instead.*db\.run\(sql`begin`\)/s);
  });
});
