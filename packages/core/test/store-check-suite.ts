// Issue 46: checkStore (what `hilo check` runs) only reads, and reads exactly: for every strategy of every SQL source
// the first key it says the next block starts at is the first key the next reservation really hands out, the store
// is unchanged by it, and a stored key at that first key is `behind` while one just below it is `ok`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDatabase, randomName } from '@hilo/testing';
import { checkStore, connect, createHiLo, type SqlClient } from 'hilo-core';

type Database = 'postgres' | 'mysql' | 'sqlite';
const CASES = [
  { source: 'sequence', strategy: 'pooled-lo' },
  { source: 'sequence', strategy: 'pooled' },
  { source: 'sequence', strategy: 'hilo' },
  { source: 'table', strategy: 'pooled-lo' },
  { source: 'table', strategy: 'range' },
  { source: 'table', strategy: 'hilo' },
] as const;

export function runStoreCheckSuite(database: Database): void {
  const body = (url: () => string) => {
    let client: SqlClient;
    beforeAll(async () => {
      client = await connect(url());
    });
    afterAll(() => client.close());

    const cases = database === 'sqlite' ? CASES.filter((c) => c.source === 'table') : CASES;
    it.each(cases)('$source, $strategy: the next block read without reserving is the one reserved next', async (c) => {
      const segment = randomName('k');
      const table = `${segment}_rows`;
      await client.query(`create table ${table} (id bigint primary key)`);
      const options = { client, source: c.source, strategy: c.strategy, blockSize: 10, keyType: 'bigint' } as const;
      const app = createHiLo({ ...options, prefetchAt: false, adaptive: false });
      for (let i = 0; i < 13; i++) await client.query(`insert into ${table} (id) values (${await app.next(segment)})`);
      await app.close();

      const check = (stored: string) =>
        checkStore(client, {
          segment,
          stored: [{ table: stored, column: 'id' }],
          source: c.source,
          sourceOptions: { strategy: c.strategy, increment: 10 },
        });
      const state = async () =>
        JSON.stringify(
          (
            await client.query(
              c.source === 'table'
                ? `select * from hilo_segments where segment = '${segment}'`
                : database === 'postgres'
                  ? `select last_value::text as l, log_cnt::text as c, is_called as i from ${segment}_hilo_seq`
                  : `select * from ${segment}_hilo_seq`,
            )
          ).rows,
          (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
        );
      const before = await state();
      const ok = await check(table);
      expect(ok).toMatchObject({ status: 'ok', largest: { key: 13n } });
      expect(await state()).toBe(before);

      // a stored key just below the next block is fine (a table source gave its unused tail back: it is 13 then)
      if (ok.nextKey - 1n > 13n) await client.query(`insert into ${table} (id) values (${ok.nextKey - 1n})`);
      expect(await check(table)).toMatchObject({ status: 'ok', largest: { key: ok.nextKey - 1n } });
      // one at its first key is behind
      await client.query(`insert into ${table} (id) values (${ok.nextKey})`);
      const behind = await check(table);
      expect(behind).toMatchObject({ status: 'behind', nextKey: ok.nextKey, largest: { key: ok.nextKey } });
      expect(behind.fix).toContain(`hilo floor --url <URL> --source ${c.source} ${segment} --from ${table}.id`);
      expect(await state()).toBe(before);

      // what it read is what the store hands out next
      const next = createHiLo(options);
      expect(await next.next(segment)).toBe(ok.nextKey);
      await next.close();
    });
  };
  if (database === 'sqlite') {
    describe('sqlite: checkStore', () => {
      const folder = mkdtempSync(join(tmpdir(), 'hilo-store-check-'));
      afterAll(() => rmSync(folder, { recursive: true, force: true }));
      body(() => `sqlite:${join(folder, 'keys.db')}`);
    });
  } else {
    describeDatabase(database, `${database}: checkStore`, (db) => body(() => db.url));
  }
}
