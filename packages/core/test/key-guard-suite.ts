import { describeDatabase, type TestDatabase } from '@hilo/testing';
import { HiLoSourceError, connect, ensureKeyGuard, type SqlClient } from 'hilo-core';

/** ensureKeyGuard on a fresh database of `kind`: run by sql-key-guard.postgres.test.ts and sql-key-guard.mysql.test.ts. */
export function keyGuardSuite(kind: 'postgres' | 'mysql'): void {
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
      // PostgreSQL names each adapter's install line; MariaDB's MESSAGE_TEXT (128 characters) only says where
      await expect(client.query("insert into guarded (name) values ('keyless')")).rejects.toThrow(
        kind === 'postgres'
          ? new RegExp(
              "^hilo: a row of segment 'orders' arrived without a key, so hilo is not installed on the client that " +
                'inserted it\\. Install it where that client is created: TypeORM withHiLo\\(new DataSource\\(options\\)\\);' +
                ".*Drizzle \\.\\$defaultFn\\(hilo\\.key\\('orders'\\)\\).*generator\\.next\\('orders'\\)",
            )
          : /^hilo: a row of segment 'orders' arrived without a key: install hilo on the client that inserts it$/,
      );
      await client.query("insert into guarded (id, name) values (101, 'keyed')");
      const { rows } = await client.query<{ id: unknown }>('select id from guarded');
      expect(rows.map((row) => String(row.id))).toEqual(['101']);
    });

    if (kind === 'mysql') {
      it('should replace the trigger in one statement on MariaDB, so the table is never unguarded', async () => {
        const sent: string[] = [];
        const watched: SqlClient = {
          ...client,
          query: (sql, params) => (sent.push(sql), client.query(sql, params)),
          transaction: (work) =>
            client.transaction((tx) => work({ query: (sql, params) => (sent.push(sql), tx.query(sql, params)) })),
        };
        await ensureKeyGuard(watched, [{ segment: 'orders', table: 'guarded' }]);
        const { rows } = await client.query<{ v: unknown }>('select version() as v');
        if (/mariadb/i.test(String(rows[0]?.v))) {
          expect(sent.filter((sql) => /trigger/i.test(sql)).map((sql) => sql.split(' ').slice(0, 4).join(' '))).toEqual(
            ['create or replace trigger'],
          );
        } else {
          expect(sent.some((sql) => sql.startsWith('drop trigger if exists'))).toBe(true); // MySQL: drop, then create
        }
        await expect(client.query("insert into guarded (name) values ('keyless')")).rejects.toThrow(
          /arrived without a key/,
        );
      });
    }

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
