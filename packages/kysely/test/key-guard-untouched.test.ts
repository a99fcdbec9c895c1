// Issue 46, item 6 installs hilo's key guard by default on SQLite only (key-guard.sqlite.test.ts): PostgreSQL and
// MariaDB/MySQL refuse a key-less row on NOT NULL, and there hilo still installs nothing unless `hilo init
// --guard` (or ensureKeyGuard) is run. This proves they stay as they were: no default, no trigger, NOT NULL's error.
import { describeDatabase, type TestDatabase } from '@hilo/testing';
import { connect } from 'hilo-core';
import { hiloKysely } from 'hilo-kysely';

function suite(kind: 'postgres' | 'mysql', db: TestDatabase): void {
  it(`hiloKysely() installs no key guard on ${kind}; a key-less row fails on NOT NULL as before`, async () => {
    const client = await connect(db.url);
    const hilo = hiloKysely({ url: db.url, blockSize: 10, tables: { guard_orders: true } });
    try {
      await client.query('create table guard_orders (id bigint primary key, total integer not null)');
      await hilo.warm();
      if (kind === 'postgres') {
        const { rows } = await client.query<{ d: unknown }>(
          `select column_default as d from information_schema.columns where table_name = 'guard_orders' and column_name = 'id'`,
        );
        expect(rows[0]?.d ?? null).toBeNull();
      } else {
        const { rows } = await client.query<{ n: unknown }>(
          `select count(*) as n from information_schema.triggers where event_object_schema = database()`,
        );
        expect(Number(rows[0]?.n)).toBe(0);
      }
      const error = await client.query('insert into guard_orders (total) values (1)').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).not.toMatch(/^hilo:/);
    } finally {
      await hilo.close();
      await client.close();
    }
  });
}

describeDatabase('postgres', 'key guard on postgres', (db) => suite('postgres', db));
describeDatabase('mysql', 'key guard on mysql', (db) => suite('mysql', db));
