// The key guard on SQLite: without it, a row inserted without a key is stored with SQLite's own (the next rowid
// of an INTEGER PRIMARY KEY, a key hilo hands out later) or with a NULL key (any other primary key column).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HiLoSourceError, connect, createHiLo, ensureKeyGuard, type SqlClient } from 'hilo-core';

describe('sqlite: ensureKeyGuard', () => {
  const folder = mkdtempSync(join(tmpdir(), 'hilo-guard-'));
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(`sqlite:${join(folder, 'guard.db')}`);
    await client.query('create table rowid_keyed (id integer primary key, name text not null)');
    await client.query('create table bigint_keyed (id bigint primary key, name text not null)');
  });
  afterAll(async () => {
    await client.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("should store a key-less row with a key of SQLite's own when unguarded (why the guard exists)", async () => {
    await client.query('create table unguarded (id integer primary key, name text not null)');
    await client.query("insert into unguarded (name) values ('keyless')");
    const { rows } = await client.query<{ id: unknown }>('select id from unguarded');
    expect(rows.map((row) => Number(row.id))).toEqual([1]); // the first key hilo hands out, taken already
  });

  it.each(['rowid_keyed', 'bigint_keyed'])(
    "should reject a row without a key in %s with the hilo message, accept hilo's keys, and install twice",
    async (table) => {
      for (let i = 0; i < 2; i++) await ensureKeyGuard(client, [{ segment: table, table }]);
      for (const keyless of [
        `insert into ${table} (name) values ('keyless')`,
        `insert into ${table} (id, name) values (null, 'null key')`,
        `insert into ${table} (name) select 'selected'`,
      ]) {
        await expect(client.query(keyless)).rejects.toThrow(
          new RegExp(`hilo: a row of segment '${table}' arrived without a key`),
        );
      }
      const hilo = createHiLo({ client, source: 'table', create: true, blockSize: 10 });
      try {
        for (let i = 0; i < 3; i++)
          await client.query(`insert into ${table} (id, name) values (?, 'keyed')`, [await hilo.next(table)]);
      } finally {
        await hilo.close();
      }
      const { rows } = await client.query<{ id: unknown; name: string }>(`select id, name from ${table} order by id`);
      expect(rows.map((row) => [Number(row.id), row.name])).toEqual([
        [1, 'keyed'],
        [2, 'keyed'],
        [3, 'keyed'],
      ]);
    },
  );

  it('should name a missing table or column and install nothing', async () => {
    await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'no_such_table' }])).rejects.toThrow(
      /Cannot guard "no_such_table\.id" \(segment "x"\): table "no_such_table" does not exist/,
    );
    await expect(ensureKeyGuard(client, [{ segment: 'x', table: 'rowid_keyed', column: 'nope' }])).rejects.toThrow(
      /has no column "nope"/,
    );
    await expect(
      ensureKeyGuard(client, [{ segment: 'x', table: 'rowid_keyed', column: 'nope' }]),
    ).rejects.toBeInstanceOf(HiLoSourceError);
    const { rows } = await client.query<{ name: string }>(
      "select name from sqlite_master where type = 'trigger' order by name",
    );
    expect(rows.map((row) => row.name)).toEqual(['bigint_keyed_hilo_key', 'rowid_keyed_hilo_key']);
  });
});
