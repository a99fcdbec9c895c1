// The in-process source of a private in-memory SQLite database, shared by hilo-typeorm and hilo-mikro-orm:
// it starts above the keys already stored and never goes back for the life of its owner.
import Database from 'better-sqlite3';
import { createHiLoGenerator } from 'hilo-core';
import { privateDatabaseSource, type PrivateDatabaseQuery, type StoredKeyColumn } from 'hilo-core/adapter-kit';

function memoryDatabase() {
  const db = new Database(':memory:');
  const query: PrivateDatabaseQuery = async (sql, params) =>
    db.prepare(sql).all(...params) as Record<string, unknown>[];
  return { db, query };
}

const columns: StoredKeyColumn[] = [
  { segment: 'orders', table: 'orders', column: 'id' },
  { segment: 'orders', table: 'archived_orders', column: 'order id' },
];

describe('privateDatabaseSource', () => {
  it('starts each segment above the largest key stored in any of its columns, and treats missing tables as empty', async () => {
    const { db, query } = memoryDatabase();
    db.exec('create table orders (id integer primary key); insert into orders values (7), (12)');
    db.exec('create table archived_orders ("order id" bigint); insert into archived_orders values (40)');
    const generator = createHiLoGenerator({ source: privateDatabaseSource({}, columns, query), blockSize: 10 });
    try {
      expect(await generator.reserve('orders', 3)).toEqual([41, 42, 43]);
      expect(await generator.next('items')).toBe(1); // a segment with no known columns
    } finally {
      await generator.close();
      db.close();
    }
  });

  it('compares keys stored as decimal text as numbers (10 above 9)', async () => {
    const { db, query } = memoryDatabase();
    db.exec(`create table orders (id text primary key); insert into orders values ('9'), ('10'), ('2')`);
    const generator = createHiLoGenerator({ source: privateDatabaseSource({}, [columns[0]!], query), blockSize: 10 });
    try {
      expect(await generator.next('orders')).toBe(11);
    } finally {
      await generator.close();
      db.close();
    }
  });

  it('never goes back for the same owner: a second generator continues, even after rows were deleted', async () => {
    const { db, query } = memoryDatabase();
    db.exec('create table orders (id integer primary key); insert into orders values (100)');
    const owner = {};
    const first = createHiLoGenerator({ source: privateDatabaseSource(owner, columns, query), blockSize: 10 });
    expect(await first.next('orders')).toBe(101);
    await first.next('orders');
    await first.close(); // the unused tail 103..110 is returned to the counter
    db.exec('delete from orders');
    const second = createHiLoGenerator({ source: privateDatabaseSource(owner, columns, query), blockSize: 10 });
    try {
      expect(await second.next('orders')).toBe(103);
      // a row written since (outside hilo) above the counter moves the next generator's start above it
      db.exec('insert into orders values (500)');
      const third = createHiLoGenerator({ source: privateDatabaseSource(owner, columns, query), blockSize: 10 });
      expect(await third.next('orders')).toBe(501);
      await third.close();
      // another owner is another database: its own counter
      const other = createHiLoGenerator({ source: privateDatabaseSource({}, columns, query), blockSize: 10 });
      expect(await other.next('orders')).toBe(501);
      await other.close();
    } finally {
      await second.close();
      db.close();
    }
  });
});
