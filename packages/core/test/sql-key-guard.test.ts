import { describeDatabase, type TestDatabase } from '@hilo/testing';
import { HiLoConfigurationError, HiLoSourceError, connect, ensureKeyGuard, keyGuardSql, type SqlClient } from 'hilo-core';

describe('keyGuardSql', () => {
  it('should write the function once per schema and one default per column on PostgreSQL', () => {
    const statements = keyGuardSql('postgres', [
      { segment: 'orders', table: 'orders' },
      { segment: "it's", table: 'items', column: 'item_id' },
      { segment: 'orders', table: 'orders', schema: 'shop' },
    ]);
    expect(statements).toHaveLength(5);
    expect(statements[0]).toMatch(/^create or replace function "hilo_missing_key"\(segment text\)/);
    expect(statements[1]).toMatch(/^create or replace function "shop"\."hilo_missing_key"/);
    expect(statements.slice(2)).toEqual([
      `alter table "orders" alter column "id" set default "hilo_missing_key"('orders')`,
      `alter table "items" alter column "item_id" set default "hilo_missing_key"('it''s')`,
      `alter table "shop"."orders" alter column "id" set default "shop"."hilo_missing_key"('orders')`,
    ]);
  });

  it('should write a drop and a create of a trigger per table on MariaDB/MySQL', () => {
    const [drop, create] = keyGuardSql('mysql', [{ segment: 'orders', table: 'orders', schema: 'shop' }]);
    expect(drop).toBe('drop trigger if exists `shop`.`orders_hilo_key`');
    expect(create).toMatch(/^create trigger `shop`\.`orders_hilo_key` before insert on `shop`\.`orders` for each row/);
    expect(create).toMatch(/NEW\.`id` is null or NEW\.`id` = 0/);
  });

  it('should refuse names that are not plain identifiers, and SQLite, before writing SQL', () => {
    expect(() => keyGuardSql('postgres', [{ segment: 'orders', table: 'orders"; drop table x; --' }])).toThrow(
      /Expected table name to match/,
    );
    expect(() => keyGuardSql('mysql', [{ segment: 'orders', table: 'orders', column: 'a b' }])).toThrow(/Expected column name/);
    expect(() => keyGuardSql('postgres', [{ segment: '', table: 'orders' }])).toThrow(/segment/);
    expect(() => keyGuardSql('sqlite' as 'postgres', [])).toThrow(HiLoConfigurationError);
  });
});

for (const kind of ['postgres', 'mysql'] as const) {
  describeDatabase(kind, `${kind}: ensureKeyGuard`, (db: TestDatabase) => {
    let client: SqlClient;
    beforeAll(async () => {
      client = await connect(db.url);
      await client.query(
        kind === 'postgres'
          ? 'create table guarded (id bigint primary key, name text not null)'
          : 'create table guarded (id bigint not null auto_increment primary key, name varchar(20) not null)',
      );
    });
    afterAll(async () => {
      await client.close();
    });

    it('should reject a row without a key with the hilo message, accept one with a key, and install twice', async () => {
      for (let i = 0; i < 2; i++) await ensureKeyGuard(client, [{ segment: 'orders', table: 'guarded' }]);
      await expect(client.query("insert into guarded (name) values ('keyless')")).rejects.toThrow(
        /hilo: a row of segment 'orders' arrived without a key/,
      );
      await client.query("insert into guarded (id, name) values (101, 'keyed')");
      const { rows } = await client.query<{ id: unknown }>('select id from guarded');
      expect(rows.map((row) => String(row.id))).toEqual(['101']);
    });

    if (kind === 'postgres') {
      it('should refuse an identity column, whose keys PostgreSQL assigns, and say how to drop it', async () => {
        await client.query('create table identity_keyed (id bigint generated always as identity primary key)');
        await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'identity_keyed' }])).rejects.toThrow(
          /identity column.*drop identity/,
        );
      });
    }

    it('should name a missing table or column and install nothing', async () => {
      await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'no_such_table' }])).rejects.toThrow(
        /Cannot guard "no_such_table\.id" \(segment "x"\): table .*no_such_table.* does not exist/,
      );
      await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'guarded', column: 'nope' }])).rejects.toThrow(
        /has no column .nope./,
      );
      await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'guarded', column: 'nope' }])).rejects.toBeInstanceOf(
        HiLoSourceError,
      );
    });
  });
}
