// Issue 55 for Drizzle on MariaDB: hilo.loadGraph(db, …) with mysql2 (multi-row INSERTs in one transaction), the
// tables read from Drizzle, keys and parent keys written back into the rows under their property names; inside a
// Drizzle transaction in a savepoint of it; a refused row rolls everything back with HiLoGraphLoadError.
import { describeMysql } from '@hilo/testing';
import { eq } from 'drizzle-orm';
import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { bigint, boolean, int, json, mysqlTable, varchar, type AnyMySqlColumn } from 'drizzle-orm/mysql-core';
import mysqlCallbacks from 'mysql2';
import mysql from 'mysql2/promise';
import { HiLoGraphLoadError, hiloDrizzle, type DrizzleGraphNode, type HiLoDrizzle } from 'hilo-drizzle';

function shopOf(hilo: HiLoDrizzle) {
  const orders = mysqlTable('orders', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
    reference: varchar('reference', { length: 40 }).notNull(),
    paid: boolean('paid').notNull(),
    meta: json('meta'),
  });
  const orderItems = mysqlTable('order_items', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('order_items')),
    orderId: bigint('order_id', { mode: 'number' })
      .notNull()
      .references(() => orders.id),
    sku: varchar('sku', { length: 40 }).notNull(),
    quantity: int('quantity').notNull(),
  });
  const categories = mysqlTable('categories', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('categories')),
    parentId: bigint('parent_id', { mode: 'number' }).references((): AnyMySqlColumn => categories.id),
    name: varchar('name', { length: 40 }).notNull(),
  });
  return { orders, orderItems, categories };
}
type Shop = ReturnType<typeof shopOf>;
type ItemRow = { id?: number; orderId?: number; sku: string; quantity: number };

function ordersWithItems(shop: Shop, count: number, items: number, bad?: (o: number, i: number) => boolean) {
  const orders = Array.from({ length: count }, (_, o) => ({
    row: { reference: `R-${o}`, paid: o % 2 === 0, meta: { o } } as { id?: number; reference: string; paid: boolean },
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

describeMysql('hilo-drizzle graph loads on MariaDB (mysql2)', (db) => {
  let pool: mysql.Pool;
  let hilo: HiLoDrizzle;
  let shop: Shop;
  let app: MySql2Database;
  const count = async (table: string): Promise<number> => {
    const [rows] = await pool.query(`select count(*) as n from ${table}`);
    return Number((rows as { n: number }[])[0]!.n);
  };

  beforeAll(() => {
    pool = mysql.createPool({ uri: db.url, connectionLimit: 3 });
    app = drizzle({ client: pool });
  });
  afterAll(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    await pool.query('drop table if exists order_items, orders, categories');
    await pool.query(
      'create table orders (id bigint primary key, reference varchar(40) not null, paid boolean not null, meta json)',
    );
    await pool.query(
      `create table order_items (id bigint primary key, order_id bigint not null references orders (id),
         sku varchar(40) not null, quantity int not null check (quantity > 0))`,
    );
    await pool.query(
      'create table categories (id bigint primary key, parent_id bigint references categories (id), name varchar(40) not null)',
    );
    hilo = hiloDrizzle({ url: db.url, blockSize: 50 });
    shop = shopOf(hilo);
  });
  afterEach(async () => {
    await hilo.close();
  });

  it("loads orders with their items on the app's pool: keys written back, equal to the rows' ids, foreign keys right", async () => {
    const { orders, input } = ordersWithItems(shop, 30, 3);
    const result = await hilo.loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input(), batchRows: 40 });
    expect(result).toEqual({ items: 30, rows: { orders: 30, order_items: 90 } });
    const stored = new Map((await app.select().from(shop.orders)).map((row) => [row.id, row]));
    const items = new Map((await app.select().from(shop.orderItems)).map((row) => [row.id, row]));
    expect(stored.size).toBe(30);
    for (const order of orders) {
      expect(stored.get(order.row.id!)).toEqual({ ...order.row, meta: { o: Number(order.row.reference.slice(2)) } });
      for (const item of order.items) {
        expect(item.orderId).toBe(order.row.id);
        expect(items.get(item.id!)).toEqual({ ...item, orderId: order.row.id });
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
    await hilo.loadGraph(app, { tables: [shop.categories], input: [tree('root', 2)], batchRows: 3 });
    const stored = new Map((await app.select().from(shop.categories)).map((row) => [row.id, row]));
    const byName = new Map(rows.map((row) => [row.name, row]));
    expect(stored.size).toBe(7);
    for (const row of rows) {
      const parentId = row.name === 'root' ? null : byName.get(row.name.replace(/\.[ab]$/, ''))!.id;
      expect(stored.get(row.id!)).toEqual({ id: row.id, name: row.name, parentId });
      if (parentId !== null) expect(row.parentId).toBe(parentId);
    }
  });

  it('inside a Drizzle transaction: rolled back with it (no rows left), or committed with it', async () => {
    class RolledBack extends Error {}
    await expect(
      app.transaction(async (tx) => {
        await hilo.loadGraph(tx, {
          tables: [shop.orders, shop.orderItems],
          input: ordersWithItems(shop, 4, 2).input(),
        });
        expect((await tx.select().from(shop.orderItems)).length).toBe(8);
        throw new RolledBack();
      }),
    ).rejects.toBeInstanceOf(RolledBack);
    expect([await count('orders'), await count('order_items')]).toEqual([0, 0]);

    const committed = ordersWithItems(shop, 4, 2);
    await app.transaction(async (tx) => {
      await hilo.loadGraph(tx, { tables: [shop.orders, shop.orderItems], input: committed.input() });
    });
    expect([await count('orders'), await count('order_items')]).toEqual([4, 8]);
    const first = committed.orders[0]!;
    const items = await app.select().from(shop.orderItems).where(eq(shop.orderItems.orderId, first.row.id!));
    expect(items.map((item) => item.id).sort()).toEqual(first.items.map((item) => item.id).sort());
  });

  it('a refused row half-way rolls the whole load back and throws HiLoGraphLoadError naming the table', async () => {
    const { orders, input } = ordersWithItems(shop, 30, 3, (o, i) => o === 21 && i === 2);
    const error = await hilo
      .loadGraph(app, { tables: [shop.orders, shop.orderItems], input: input(), batchRows: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'order_items', item: 21 });
    expect(Number((error as HiLoGraphLoadError).key)).toBe(orders[21]!.items[2]!.id);
    expect([await count('orders'), await count('order_items')]).toEqual([0, 0]);
  });

  it("loads on a Drizzle database over mysql2's callback pool too (its promise() pool)", async () => {
    const callbacks = mysqlCallbacks.createPool({ uri: db.url, connectionLimit: 2 });
    try {
      const { orders, input } = ordersWithItems(shop, 3, 1);
      await hilo.loadGraph(drizzle({ client: callbacks }), { tables: [shop.orders, shop.orderItems], input: input() });
      expect(await count('order_items')).toBe(3);
      expect(orders.every((order) => typeof order.row.id === 'number')).toBe(true);
    } finally {
      await new Promise((resolve) => callbacks.end(resolve));
    }
  });
});
