// Issue 54, "Cloudflare D1 (miniflare) × Drizzle": a Drizzle app on D1 (`drizzle-orm/d1`) gives hilo the same binding
// through hilo-core's d1Client(). Keys come before the insert from the hilo_segments row (one UPDATE … RETURNING per
// reservation: D1 has no interactive transactions), a parent and its children go in one db.batch() with the parent's
// key in the children's foreign keys, hilo's key guard (installed with one D1 batch) refuses a row without a key, and
// a second app on another binding of the database never gets a key the first has. Runs on miniflare's local D1, on
// every Drizzle release of the peer range (`drizzle-orm/d1` is in each).
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describeD1, type D1Binding } from '@hilo/testing';
import { d1Client } from 'hilo-core';
import { HiLoConfigurationError, HiLoStoreBehindError, hiloDrizzle, type HiLoDrizzle } from 'hilo-drizzle';

function shopOf(hilo: HiLoDrizzle, suffix: string) {
  const orders = sqliteTable(`orders_${suffix}`, {
    id: integer('id')
      .primaryKey()
      .$defaultFn(hilo.key(`orders_${suffix}`)),
    reference: text('reference').notNull(),
  });
  const orderItems = sqliteTable(`order_items_${suffix}`, {
    id: integer('id')
      .primaryKey()
      .$defaultFn(hilo.key(`order_items_${suffix}`)),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id),
    sku: text('sku').notNull(),
  });
  return { orders, orderItems };
}

/** Every message of an error and its causes: Drizzle 1.0 wraps a query's error (DrizzleQueryError) with D1's as cause. */
function messagesOf(error: unknown): string {
  const messages: string[] = [];
  for (let e = error as { message?: string; cause?: unknown } | undefined; e !== undefined; e = e.cause as never)
    messages.push(String(e.message));
  return messages.join(' / ');
}

describeD1('hilo-drizzle on Cloudflare D1 (drizzle-orm/d1)', (d1) => {
  let tables = 0;
  let suffix = '';
  let binding: D1Binding;
  beforeEach(async () => {
    binding = d1.database();
    suffix = String(++tables);
    await binding.batch([
      binding.prepare(`create table orders_${suffix} (id integer primary key, reference text not null)`),
      binding.prepare(
        `create table order_items_${suffix} (id integer primary key, ` +
          `order_id integer not null references orders_${suffix} (id), sku text not null)`,
      ),
    ]);
  });

  it('keys before the insert; a parent and its children in one db.batch(); the key guard refuses a row without a key', async () => {
    const hilo = hiloDrizzle({ client: d1Client(binding), blockSize: 20 });
    const { orders, orderItems } = shopOf(hilo, suffix);
    const db = drizzle(binding as never);
    try {
      await hilo.warm([orders, orderItems]);

      // the parent's key before the insert: the children carry it in one batch with the parent (all or none)
      const orderId = (await hilo.nextId(orders)) as number;
      await db.batch([
        db.insert(orders).values({ id: orderId, reference: 'A-1' }),
        db.insert(orderItems).values([
          { orderId, sku: 'TEA' },
          { orderId, sku: 'CAKE' },
        ]),
      ]);

      // a larger multi-row insert: ensure() first, then $defaultFn serves every row from memory (D1 allows 100 bound
      // parameters per statement: 30 rows of 2 columns)
      await hilo.ensure(orders, 30);
      await db.insert(orders).values(Array.from({ length: 30 }, (_, i) => ({ reference: `B-${i}` })));

      const joined = await db
        .select({ reference: orders.reference, sku: orderItems.sku })
        .from(orderItems)
        .innerJoin(orders, eq(orderItems.orderId, orders.id))
        .where(eq(orders.id, orderId));
      expect(joined.map((r) => `${r.reference} ${r.sku}`).sort()).toEqual(['A-1 CAKE', 'A-1 TEA']);
      const ids = (await db.select({ id: orders.id }).from(orders)).map((r) => r.id);
      expect(ids).toHaveLength(31);
      expect(new Set(ids).size).toBe(31);
      expect(Math.min(...ids)).toBe(orderId);

      // the key guard, installed at warm(): a row without a key is refused and nothing is written
      const refused = await binding
        .prepare(`insert into orders_${suffix} (reference) values ('no key')`)
        .run()
        .catch((e: unknown) => e);
      expect(messagesOf(refused)).toMatch(
        new RegExp(
          `row of segment 'orders_${suffix}' arrived without a key.*\\$defaultFn\\(hilo\\.key\\('orders_${suffix}'\\)\\)`,
        ),
      );
      expect(await db.select({ id: orders.id }).from(orders)).toHaveLength(31);

      // graph loads write through a bulk path D1 does not have: refused, naming what is supported
      await expect(
        hilo.loadGraph(db, { tables: [orders], input: [{ table: orders, row: { reference: 'G-1' } }] }),
      ).rejects.toThrow(HiLoConfigurationError);
    } finally {
      await hilo.close();
    }
    // close() leaves the binding (the app's) open
    expect((await binding.prepare('select 1 as one').all()).results).toEqual([{ one: 1 }]);
  });

  it('two apps on two bindings of the database never get the same key; a set-back hi row is refused', async () => {
    const other = await d1.anotherBinding();
    const first = hiloDrizzle({ client: d1Client(binding), blockSize: 5 });
    const second = hiloDrizzle({ client: d1Client(other), blockSize: 5 });
    const a = shopOf(first, suffix);
    const b = shopOf(second, suffix);
    const dbA = drizzle(binding as never);
    const dbB = drizzle(other as never);
    try {
      await Promise.all([first.warm([a.orders]), second.warm([b.orders])]);
      const keys = await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const [hilo, shop, db] = i % 2 === 0 ? [first, a, dbA] : [second, b, dbB];
          const id = (await hilo.nextId(shop.orders)) as number;
          await db.insert(shop.orders).values({ id, reference: `R-${i}` });
          return id;
        }),
      );
      expect(new Set(keys).size).toBe(60);
    } finally {
      await first.close();
      await second.close();
    }

    // the hi row set back (a restored backup): a new app's first block overlaps the stored keys and is refused
    await binding.prepare(`update hilo_segments set next_value = 1 where segment = 'orders_${suffix}'`).run();
    const restarted = hiloDrizzle({ client: d1Client(binding), blockSize: 5 });
    const { orders } = shopOf(restarted, suffix);
    try {
      await expect(restarted.warm([orders])).rejects.toThrow(HiLoStoreBehindError);
    } finally {
      await restarted.close();
    }
  });
});
