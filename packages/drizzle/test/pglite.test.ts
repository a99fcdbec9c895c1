// Issue 54: a Drizzle app on PGlite (`drizzle-orm/pglite`, PostgreSQL in the process) gives hilo the same instance
// through pgliteClient(). Keys before the insert inside db.transaction from the block reserved at warm(); a
// rolled-back transaction never gives its keys back; a transaction that needs more keys than are in hand is told to
// call ensure() first, at once, instead of waiting on PGlite's one session, which the transaction holds.
import { PGlite } from '@electric-sql/pglite';
import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/pglite';
import { pgliteClient } from 'hilo-core';
import { hiloDrizzle } from 'hilo-drizzle';

describe('hilo-drizzle on PGlite', () => {
  let pglite: PGlite;
  beforeEach(async () => {
    pglite = new PGlite();
    await pglite.exec(
      'create table customers (id bigint primary key, name text not null); ' +
        'create table orders (id bigint primary key, customer_id bigint not null references customers (id), note text not null)',
    );
  });
  afterEach(async () => {
    await pglite.close();
  });

  it('keys before the insert inside db.transaction; a rolled-back transaction never gives a key back', async () => {
    const hilo = hiloDrizzle({ client: pgliteClient(pglite), blockSize: 20 });
    const customers = pgTable('customers', {
      id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('customers')),
      name: text('name').notNull(),
    });
    const orders = pgTable('orders', {
      id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
      customerId: bigint('customer_id', { mode: 'number' }).notNull(),
      note: text('note').notNull(),
    });
    const db = drizzle({ client: pglite });
    try {
      await hilo.warm([customers, orders]);
      const kept = await db.transaction(async (tx) => {
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
        db.transaction(async (tx) => {
          undone = (await hilo.nextId(customers)) as number;
          await tx.insert(customers).values({ id: undone, name: 'rolled back' });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(undone).toBeGreaterThan(kept);
      const after = (await hilo.nextId(customers)) as number;
      expect(after).toBeGreaterThan(undone);
      await db.insert(customers).values({ id: after, name: 'after' });
      expect((await db.select().from(customers)).map((c) => c.id).sort((a, b) => a - b)).toEqual([kept, after]);
      expect(new Set((await db.select().from(orders)).map((o) => o.id)).size).toBe(2);

      // more keys in one transaction than are in hand: told at once to ensure() them before it
      const error = await db
        .transaction(async (tx) => {
          const customerId = (await hilo.nextId(customers)) as number;
          await tx.insert(customers).values({ id: customerId, name: 'many orders' });
          for (let i = 0; i < 100; i++) await tx.insert(orders).values({ customerId, note: `o${i}` });
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/ensure\(/);
      // with ensure() first, the same transaction goes through
      await hilo.ensure(orders, 100);
      await db.transaction(async (tx) => {
        const customerId = (await hilo.nextId(customers)) as number;
        await tx.insert(customers).values({ id: customerId, name: 'many orders' });
        for (let i = 0; i < 100; i++) await tx.insert(orders).values({ customerId, note: `o${i}` });
      });
      const stored = await db.select().from(orders);
      expect(stored).toHaveLength(102);
      expect(new Set(stored.map((o) => o.id)).size).toBe(102);
    } finally {
      await hilo.close();
    }
  });
});
