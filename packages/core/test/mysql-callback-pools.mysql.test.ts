import { createRequire } from 'node:module';
import { createPool as createMysql2Pool } from 'mysql2';
import { describeMysql } from '@hilo/testing';
import { createHiLo, mysqlClient, type MysqlCallbackPoolLike, type SqlClient } from 'hilo-core';

// mysqlClient() takes the pools apps and ORMs already have, not only mysql2/promise: mysql2's callback pool
// (TypeORM, MikroORM, Kysely) and the `mysql` package's (TypeORM 0.3 uses it when an app installs it).
const mysqlPackage = createRequire(import.meta.url)('mysql') as { createPool(uri: string): MysqlCallbackPoolLike };

const pools: Array<[string, (url: string) => MysqlCallbackPoolLike]> = [
  ['the `mysql` package', (url) => mysqlPackage.createPool(url)],
  ["mysql2's callback API", (url) => createMysql2Pool({ uri: url })],
];

describeMysql('mysqlClient() on callback pools', (db) => {
  describe.each(pools)('a pool of %s', (_name, createPool) => {
    let client: SqlClient;
    beforeAll(() => {
      client = mysqlClient(createPool(db.url), { ownsPool: true });
    });
    afterAll(async () => {
      await client.close();
    });

    it('reserves blocks from a hi table and a MariaDB sequence', async () => {
      const table = createHiLo({
        client,
        source: 'table',
        table: `hilo_cb_${_name.length}`,
        blockSize: 10,
        adaptive: false,
        keyType: 'bigint',
      });
      const fromTable = await Promise.all(Array.from({ length: 25 }, () => table.next('orders')));
      expect(new Set(fromTable).size).toBe(25);
      const sequence = createHiLo({ client, source: 'sequence', blockSize: 10, adaptive: false, keyType: 'bigint' });
      const fromSequence = await Promise.all(Array.from({ length: 25 }, () => sequence.next(`cb_${_name.length}`)));
      expect(new Set(fromSequence).size).toBe(25);
      // hilo.close() returns unused keys through the same client, which stays open (hilo did not open it)
      await table.close();
      await sequence.close();
      expect((await client.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });

    it('commits and rolls back transactions on one connection, and reports affected rows and driver errors', async () => {
      const t = `cb_rows_${_name.length}`;
      await client.query(`create table ${t} (id bigint primary key, note varchar(10))`);
      await client.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (?, ?)`, [1n, 'kept']);
      });
      await expect(
        client.transaction(async (tx) => {
          await tx.query(`insert into ${t} values (?, ?)`, [2n, 'undone']);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(
        (await client.query<{ id: unknown; note: string }>(`select id, note from ${t}`)).rows.map((r) => [
          Number(r.id),
          r.note,
        ]),
      ).toEqual([[1, 'kept']]);
      expect((await client.query(`update ${t} set note = ? where id in (?, ?)`, ['changed', 1, 2])).affectedRows).toBe(
        1,
      );
      await expect(client.query('select * from no_such_table')).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
    });
  });
});
