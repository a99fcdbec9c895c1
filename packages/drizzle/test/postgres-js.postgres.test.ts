// A Drizzle app on postgres.js (`drizzle-orm/postgres-js`, the `postgres` package) gives hilo its own
// postgres.js instance through hilo-core's postgresJsClient(): one driver in the app. The README's
// "PostgreSQL through postgres.js" wiring, run as written, then what a demanding app does with it: keys before
// the insert inside db.transaction, a rolled-back transaction whose keys never come back, and close() leaving
// the app's instance open.
import { describePostgres, usePostgresJs } from '@hilo/testing';
import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import { postgresJsClient } from 'hilo-core';
import { hiloDrizzle } from 'hilo-drizzle';

describePostgres('hilo-drizzle on postgres.js', (db) => {
  const appInstance = usePostgresJs(db, [
    'create table pjs_customers (id bigint primary key, name text not null)',
    'create table pjs_orders (id bigint primary key, customer_id bigint not null references pjs_customers(id), note text not null)',
  ]);

  it(
    "keys before the insert from the app's own postgres.js instance, inside db.transaction; a rollback " +
      'never gives a key back',
    async () => {
      const sql = appInstance.sql();
      // --- README (hilo-drizzle, "PostgreSQL through postgres.js"), with the test's instance
      const hilo = hiloDrizzle({ client: postgresJsClient(sql), blockSize: 50 });
      const customers = pgTable('pjs_customers', {
        id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('pjs_customers')),
        name: text('name').notNull(),
      });
      const orders = pgTable('pjs_orders', {
        id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('pjs_orders')),
        customerId: bigint('customer_id', { mode: 'number' }).notNull(),
        note: text('note').notNull(),
      });
      const app = drizzle({ client: sql });
      await hilo.warm();
      // --- end of README
      try {
        const kept = await app.transaction(async (tx) => {
          const customerId = (await hilo.nextId(customers)) as number;
          await tx.insert(customers).values({ id: customerId, name: 'Ada' });
          await tx.insert(orders).values([
            { customerId, note: 'first' },
            { customerId, note: 'second' },
          ]);
          return customerId;
        });
        let undone = 0;
        await expect(
          app.transaction(async (tx) => {
            undone = (await hilo.nextId(customers)) as number;
            await tx.insert(customers).values({ id: undone, name: 'rolled back' });
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        const after = (await hilo.nextId(customers)) as number;
        expect(after).toBeGreaterThan(undone);
        expect(undone).toBeGreaterThan(kept);
        const stored = await app.select().from(orders);
        expect(stored.map((order) => order.customerId)).toEqual([kept, kept]);
        expect(new Set(stored.map((order) => order.id)).size).toBe(2);
        expect(await app.select().from(customers)).toEqual([{ id: kept, name: 'Ada' }]);
      } finally {
        await hilo.close();
      }
      // hilo was given the instance: closing hilo leaves the app's queries working
      expect(await sql`select count(*)::int as n from pjs_orders`).toEqual([{ n: 2 }]);
    },
  );
});
