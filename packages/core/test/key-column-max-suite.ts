// Issue 52 item 7: the block check never reads past the key column's maximum. A block that reaches past an `integer`
// column's largest value is probed up to that value (PostgreSQL refuses a bound its column cannot hold), so the keys
// up to the maximum are handed out and then HiLoKeyLimitError, not a HiLoSourceError 47 keys early.
import { describeDatabase, randomName } from '@hilo/testing';
import { connect, createHiLo, HiLoKeyLimitError, type SqlClient } from 'hilo-core';

/** Integer column types of each database, with their largest value. */
const TYPES: Record<'postgres' | 'mysql', readonly { type: string; max: bigint }[]> = {
  postgres: [
    { type: 'integer', max: 2n ** 31n - 1n },
    { type: 'smallint', max: 2n ** 15n - 1n },
  ],
  mysql: [
    { type: 'int', max: 2n ** 31n - 1n },
    { type: 'int unsigned', max: 2n ** 32n - 1n },
    { type: 'smallint', max: 2n ** 15n - 1n },
    { type: 'mediumint', max: 2n ** 23n - 1n },
    { type: 'mediumint unsigned', max: 2n ** 24n - 1n },
  ],
};

export function runKeyColumnMaxSuite(database: 'postgres' | 'mysql'): void {
  describeDatabase(database, `${database}: the block check ends at the key column's maximum`, (db) => {
    let client: SqlClient;
    beforeAll(async () => {
      client = await connect(db.url);
    });
    afterAll(() => client.close());

    it.each(TYPES[database])(
      '$type: keys up to its maximum are handed out, then HiLoKeyLimitError',
      async ({ type, max }) => {
        const segment = randomName('m');
        const table = `${segment}_rows`;
        await client.query(`create table ${table} (id ${type} primary key)`);
        // a stored key 60 below the maximum: the store starts above it, and its 100-key block passes the maximum
        const below = max - 60n;
        await client.query(`insert into ${table} (id) values (${below})`);
        const hilo = createHiLo({
          client,
          source: 'table',
          blockSize: 100,
          adaptive: false,
          prefetchAt: false,
          keyType: 'bigint',
          maxKey: max,
          storedKeys: [{ segment, table, column: 'id' }],
          onStoreBehind: 'lift',
        });
        try {
          const keys: bigint[] = [];
          let failure: unknown;
          for (let i = 0; i < 200 && failure === undefined; i++) {
            try {
              keys.push(await hilo.next(segment));
            } catch (error) {
              failure = error;
            }
          }
          expect(failure).toBeInstanceOf(HiLoKeyLimitError);
          expect(keys.length).toBeGreaterThan(0);
          expect(keys[0]! > below).toBe(true);
          expect(keys.at(-1)).toBe(max);
          expect(keys.every((k) => k <= max)).toBe(true);
        } finally {
          await hilo.close();
          await client.query(`drop table ${table}`);
          await client.query(`delete from hilo_segments where segment = '${segment}'`);
        }
      },
    );
  });
}
