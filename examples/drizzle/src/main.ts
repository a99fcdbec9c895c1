import pg from 'pg';
import postgres from 'postgres';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js';
import { postgresJsClient } from 'hilo-core';
import { hiloDrizzle } from 'hilo-drizzle';
import { DDL, shopSchema } from './schema.js';

const catalog = [
  { sku: 'TEA-GREEN', priceCents: 450 },
  { sku: 'TEA-BLACK', priceCents: 390 },
  { sku: 'MUG', priceCents: 1200 },
];
const people = [
  { name: 'Ada Lovelace', email: 'ada@example.com' },
  { name: 'Grace Hopper', email: 'grace@example.com' },
  { name: 'Edsger Dijkstra', email: 'edsger@example.com' },
];

/** Opens Drizzle and hilo on `url`, creating the shop's tables. */
export async function openShop(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // an idle connection the server closes (a restart, a failover) must not crash the app: the next query reconnects
  pool.on('error', () => undefined);
  const counter = { count: 0 };
  const db = drizzle({ client: pool, logger: { logQuery: () => void counter.count++ } });
  for (const sql of DDL) await pool.query(sql);
  // hilo's own connection: reservations commit there, never in the app's transactions
  const hilo = hiloDrizzle({ url, blockSize: 100 });
  const tables = shopSchema(hilo);
  // the tables, not only their segments: verified blocks check their stored keys
  await hilo.warm([tables.customers, tables.orders, tables.items]);
  return {
    db,
    hilo,
    tables,
    counter,
    async close() {
      try {
        await hilo.close();
      } finally {
        await pool.end();
      }
    },
  };
}

/**
 * Runs the shop on the PostgreSQL database at `url`: keys known before the insert, orders wired to
 * customers by key, one multi-row INSERT per table, a rolled-back transaction; then the same batch with
 * identity keys (`RETURNING id` first, then the items).
 */
export async function run(url: string, log: (line: string) => void = console.log) {
  const { db, hilo, tables, counter, close } = await openShop(url);
  const { customers, orders, items, identityOrders, identityItems } = tables;
  const customerKey = hilo.key('customers');
  const orderKey = hilo.key('orders');
  const itemKey = hilo.key('order_items');
  try {
    // 1. Keys before the insert: the $defaultFn is callable, and after warm() it is served from memory.
    const shoppers = people.map((p) => ({ id: customerKey(), ...p }));
    const basket = shoppers.flatMap((customer, n) =>
      [0, 1].map((k) => ({ id: orderKey(), customerId: customer.id, k: n + k })),
    );
    const lines = basket.flatMap((order) =>
      catalog
        .slice(0, 2 + (order.k % 2))
        .map((product, i) => ({ id: itemKey(), orderId: order.id, ...product, quantity: 1 + i })),
    );
    const keysBeforeFlush = shoppers.length + basket.length + lines.length;
    log(
      `${keysBeforeFlush} keys known before anything was inserted, e.g. order ${basket[0]!.id} of customer ${basket[0]!.customerId}`,
    );

    // 2. One transaction, one multi-row INSERT per table, no RETURNING.
    const before = counter.count;
    await db.transaction(async (tx) => {
      await tx.insert(customers).values(shoppers);
      await tx.insert(orders).values(basket.map(({ k: _, ...o }) => o));
      await tx.insert(items).values(lines);
    });
    const statements = counter.count - before; // BEGIN and COMMIT included
    log(
      `inserted ${shoppers.length} customers, ${basket.length} orders and ${lines.length} items in ${statements} statements`,
    );

    // 3. A rolled-back transaction: its keys are gone for good.
    let abandoned = 0;
    await db
      .transaction(async (tx) => {
        abandoned = (await hilo.nextId(orders)) as number;
        await tx.insert(orders).values({ id: abandoned, customerId: shoppers[0]!.id });
        throw new Error('payment declined');
      })
      .catch((error: Error) => log(`transaction rolled back (${error.message}); order key ${abandoned} stays unused`));
    const next = orderKey();
    const carry = await db.select().from(orders).where(eq(orders.id, abandoned));
    log(`the next order gets key ${next}, not ${abandoned}; ${carry.length} rows carry ${abandoned}`);

    // 4. The same batch with identity keys: orders first, RETURNING their keys, then the items.
    const beforeIdentity = counter.count;
    await db.transaction(async (tx) => {
      const saved = await tx
        .insert(identityOrders)
        .values(basket.map((o) => ({ customerId: o.customerId })))
        .returning({ id: identityOrders.id });
      await tx
        .insert(identityItems)
        .values(
          saved.flatMap((order, n) =>
            catalog
              .slice(0, 2 + (basket[n]!.k % 2))
              .map((product, i) => ({ orderId: order.id, ...product, quantity: 1 + i })),
          ),
        );
    });
    const identityStatements = counter.count - beforeIdentity + 1; // + the customers insert it also needs
    log(`identity keys: the same batch took ${identityStatements} statements, and no key was known before inserting`);
    const reservations = Object.values((await hilo.generator()).stats()).reduce((sum, s) => sum + s.reservations, 0);
    log(`hilo reserved blocks ${reservations} times, on a connection of its own`);

    // 5. A graph load: orders with their items streamed in by COPY, one transaction, keys written into the rows.
    const orderRows: { id?: number; customerId: number }[] = Array.from({ length: 20 }, (_, n) => ({
      customerId: shoppers[n % shoppers.length]!.id,
    }));
    const graph = orderRows.map((row) => ({
      table: orders,
      row,
      children: catalog.map((product, i) => ({ table: items, row: { ...product, quantity: 1 + i } })),
    }));
    const loaded = await hilo.loadGraph(db, { tables: [orders, items], input: graph });
    const [firstLoaded] = await db.select().from(orders).where(eq(orders.id, orderRows[0]!.id!));
    log(
      `graph load: ${loaded.rows['orders']} orders and ${loaded.rows['order_items']} items by COPY; ` +
        `order ${orderRows[0]!.id} is in the database with customer ${firstLoaded?.customerId}`,
    );

    // 6. Another process of the shop on postgres.js (drizzle-orm/postgres-js): hilo shares the app's instance.
    const postgresJsKeys = await onPostgresJs(url, log);
    const overlap = postgresJsKeys.filter((key) => shoppers.some((c) => c.id === key));
    log(`its keys share no value with this process's customers (${overlap.length} in common)`);
    return {
      keysBeforeFlush,
      statements,
      identityStatements,
      graphRows: loaded.rows,
      graphLoaded: firstLoaded !== undefined,
      postgresJsKeys,
      overlap: overlap.length,
    };
  } finally {
    await close();
  }
}

/**
 * The shop as an app on postgres.js runs it: one postgres.js instance for Drizzle and for hilo's reservations
 * (through hilo-core's postgresJsClient), a customer stored under a key known before the insert. Resolves the
 * customer keys it used.
 */
export async function onPostgresJs(url: string, log: (line: string) => void): Promise<number[]> {
  const sql = postgres(url, { max: 4, onnotice: () => undefined });
  const hilo = hiloDrizzle({ client: postgresJsClient(sql), blockSize: 100 });
  try {
    const { customers } = shopSchema(hilo);
    const db = drizzlePostgresJs({ client: sql });
    await hilo.warm([customers]);
    const keys = await db.transaction(async (tx) => {
      const rows = [
        { name: 'Barbara Liskov', email: 'barbara@example.com' },
        { name: 'Alan Kay', email: 'alan@example.com' },
      ].map((p) => ({ id: hilo.key('customers')(), ...p }));
      await tx.insert(customers).values(rows);
      return rows.map((row) => row.id);
    });
    log(
      `on postgres.js (one driver for Drizzle and hilo): customers ${keys.join(' and ')} stored under keys known before the insert`,
    );
    return keys;
  } finally {
    await hilo.close();
    await sql.end({ timeout: 1 });
  }
}
