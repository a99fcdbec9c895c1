// The Usage program of README.md on SQLite, with the tables made beforehand, on every Drizzle release of the range;
// scripts/test/readme-programs.postgres.test.ts runs the program itself, as written, on the newest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { hiloDrizzle } from 'hilo-drizzle';

it('the README usage runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-readme-'));
  const file = join(dir, 'shop.db');
  const sqlite = new Database(file);
  sqlite.exec(
    'create table customers (id integer primary key, name text not null); create table orders (id ' +
      'integer primary key, customer_id integer not null, total integer not null)',
  );
  try {
    // --- README
    const hilo = hiloDrizzle({ url: `sqlite:${file}`, blockSize: 100 });

    const customers = sqliteTable('customers', {
      id: integer('id').primaryKey().$defaultFn(hilo.key('customers')),
      name: text('name').notNull(),
    });
    const orders = sqliteTable('orders', {
      id: integer('id').primaryKey().$defaultFn(hilo.key('orders')),
      customerId: integer('customer_id').notNull(),
      total: integer('total').notNull(),
    });

    const db = drizzle({ client: new Database(file) });
    await hilo.warm();

    const customerId = (await hilo.nextId(customers)) as number;
    await db.insert(customers).values({ id: customerId, name: 'Ada' });

    await hilo.ensure(orders, 1_000);
    await db.insert(orders).values(Array.from({ length: 1_000 }, (_, i) => ({ customerId, total: i })));

    await hilo.close();
    // --- end
    const stored = db.select().from(orders).all();
    expect(stored).toHaveLength(1_000);
    expect(new Set(stored.map((o) => o.id)).size).toBe(1_000);
    expect(stored.every((o) => o.customerId === customerId)).toBe(true);
    db.$client.close();
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
