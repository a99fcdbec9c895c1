// The Usage program of README.md on SQLite, with the tables made beforehand, on every Kysely release of the range;
// scripts/test/readme-programs.postgres.test.ts runs the program itself, as written, on the newest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { hiloKysely } from 'hilo-kysely';

interface DB {
  customers: { id: Generated<number>; name: string };
  orders: { id: Generated<number>; customer_id: number; total: number };
}

it('the README usage runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-kysely-readme-'));
  const file = join(dir, 'shop.db');
  const setup = new Database(file);
  setup.exec(
    'create table customers (id integer primary key, name text not null); create table orders (id ' +
      'integer primary key, customer_id integer not null, total integer not null)',
  );
  setup.close();
  try {
    // --- README
    const hilo = hiloKysely({ url: `sqlite:${file}`, blockSize: 100, tables: { customers: true, orders: true } });
    const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: new Database(file) }), plugins: [hilo.plugin] });
    await hilo.warm();

    const customerId = (await hilo.nextId('customers')) as number;
    await db.insertInto('customers').values({ id: customerId, name: 'Ada' }).execute();

    await hilo.insert(
      db.insertInto('orders').values(Array.from({ length: 1_000 }, (_, i) => ({ customer_id: customerId, total: i }))),
    );
    // --- (the README closes here; the test reads back first)
    const stored = await db.selectFrom('orders').selectAll().execute();
    expect(stored).toHaveLength(1_000);
    expect(new Set(stored.map((o) => o.id)).size).toBe(1_000);
    expect(stored.every((o) => o.customer_id === customerId)).toBe(true);
    await db.destroy();
    await hilo.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
