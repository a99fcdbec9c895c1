/**
 * hilo through a real PgBouncer (issue #47, item 3): in transaction and session pooling, several generators on
 * one PgBouncer hand out no key twice through the sequence and the table source, with verified blocks on; in
 * statement pooling, which refuses transactions, the commands that need one fail with a typed error naming
 * `pool_mode` (before: "could not reach … check that the database runs", retried as an outage), while
 * reservations, single statements, still work.
 */
import { describePgBouncer, describePostgres, type PoolMode } from '@hilo/testing';
import {
  alterBlockSize,
  connect,
  createHiLo,
  HiLoConfigurationError,
  raiseFloor,
  sqlStoredKeys,
  type SqlClient,
  type SqlSourceKind,
} from 'hilo-core';

const clients: SqlClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function open(url: string): Promise<SqlClient> {
  const client = await connect(url, { poolSize: 4, connectTimeoutMs: 3000 });
  clients.push(client);
  return client;
}

describePostgres('PgBouncer', (db) => {
  describePgBouncer('pooling modes', (pgbouncer) => {
    it.each<[PoolMode, SqlSourceKind]>([
      ['transaction', 'sequence'],
      ['transaction', 'table'],
      ['session', 'sequence'],
      ['session', 'table'],
    ])('%s pooling, %s source: three generators hand out no key twice, verified blocks on', async (mode, kind) => {
      const bouncer = await pgbouncer.start(db.url, mode);
      const segment = `pgb_${mode}_${kind}`;
      const setup = await open(db.url);
      await setup.query(`create table ${segment} (id bigint primary key)`);
      const generators = await Promise.all(
        [0, 1, 2].map(async () => {
          const client = await open(bouncer.url);
          return {
            client,
            hilo: createHiLo({
              client,
              source: kind,
              blockSize: 25,
              adaptive: false,
              storedKeys: sqlStoredKeys(client, [{ segment, table: segment, column: 'id' }]),
            }),
          };
        }),
      );
      const keys: number[] = [];
      try {
        await Promise.all(
          generators.map(async ({ client, hilo }) => {
            for (let i = 0; i < 150; i++) {
              const key = await hilo.next(segment);
              keys.push(key);
              await client.query(`insert into ${segment} (id) values ($1)`, [key]);
            }
          }),
        );
      } finally {
        for (const { hilo } of generators) await hilo.close();
      }
      expect(keys).toHaveLength(450);
      expect(new Set(keys).size).toBe(450);
      const { rows } = await setup.query<{ n: string }>(`select count(*)::text as n from ${segment}`);
      expect(rows[0]!.n).toBe('450');
    });

    it('statement pooling: a transaction is refused with a typed error naming pool_mode; reservations still work', async () => {
      const bouncer = await pgbouncer.start(db.url, 'statement');
      const client = await open(bouncer.url);
      const transaction = client.transaction((tx) => tx.query('select 1'));
      await expect(transaction).rejects.toThrow(HiLoConfigurationError);
      await expect(client.transaction((tx) => tx.query('select 1'))).rejects.toThrow(
        /PgBouncer with pool_mode = statement.*pool_mode = transaction or session/,
      );

      const hilo = createHiLo({ client, source: 'sequence', blockSize: 10 });
      try {
        expect(await hilo.next('pgb_statement')).toBe(1);
      } finally {
        await hilo.close();
      }
      const setup = await open(db.url);
      await setup.query('create table pgb_statement (id bigint primary key)');
      await setup.query('insert into pgb_statement (id) values (500)');
      // floor and alter change a sequence inside a transaction: named, not retried as an outage
      const floor = raiseFloor(client, { segment: 'pgb_statement', table: 'pgb_statement' });
      await expect(floor).rejects.toThrow(HiLoConfigurationError);
      await expect(alterBlockSize(client, { segment: 'pgb_statement', blockSize: 20 })).rejects.toThrow(
        /pool_mode = statement/,
      );
    });
  });
});
