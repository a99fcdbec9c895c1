// Verified blocks follow the schema Drizzle writes to: a pgSchema('shop') table is probed in shop; with a pool whose
// connections carry a search_path that hilo's connection lacks, the one schema holding the table is probed, and
// where several do, the table stays missing for hilo and is refused once keys were handed out.
import { drizzle } from 'drizzle-orm/node-postgres';
import { bigint, pgSchema, pgTable, text } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { describePostgres, errorCodes, setBackHiStores, runStatements, withSearchPath } from '@hilo/testing';
import { hiloDrizzle, type HiLoDrizzleOptions } from '../src/index.js';

describePostgres('drizzle: verified blocks in a schema other than public', (db) => {
  beforeEach(async () => {
    await runStatements(db.url, [
      'drop schema if exists shop cascade',
      'create schema shop',
      'create table shop.orders (id bigint primary key, note text)',
      'drop sequence if exists public.orders_hilo_seq',
    ]);
  });

  type Setting = Partial<HiLoDrizzleOptions>;
  /** An app: Drizzle on a pool (with `search_path` when given), hilo on the database's url unless `setting.url`. */
  function app(setting: Setting, options: { searchPath?: string; inSchema?: boolean } = {}) {
    const hilo = hiloDrizzle({ url: db.url, blockSize: 10, ...setting });
    const columns = {
      id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
      note: text('note'),
    };
    const orders = options.inSchema === true ? pgSchema('shop').table('orders', columns) : pgTable('orders', columns);
    const pool = new pg.Pool({
      connectionString: options.searchPath === undefined ? db.url : withSearchPath(db.url, options.searchPath),
      max: 2,
    });
    pool.on('error', () => undefined);
    const orm = drizzle({ client: pool });
    return {
      /** Inserts `count` rows one by one; resolves with their keys, or rejects with the first error. */
      async insert(count: number): Promise<number[]> {
        const keys: number[] = [];
        for (let i = 0; i < count; i++) {
          await hilo.ensure(orders, 1);
          const [row] = await orm
            .insert(orders)
            .values({ note: `row ${i}` })
            .returning({ id: orders.id });
          keys.push(row!.id);
        }
        return keys;
      },
      async close() {
        await hilo.close();
        await pool.end();
      },
    };
  }
  type App = ReturnType<typeof app>;
  const using = async <T>(a: App, work: (a: App) => Promise<T>): Promise<T> => work(a).finally(() => a.close());
  const outcome = <T>(work: Promise<T>) =>
    work.then(
      (value) => ({ value, codes: [] as string[], error: undefined as unknown }),
      (error: unknown) => ({ value: undefined, codes: errorCodes(error), error }),
    );

  /** The store is set back below 30 stored rows: a new app refuses, lifts when told, and then starts as usual. */
  async function refusedThenLifted(open: (setting?: Setting) => App) {
    const stored = await using(open(), (a) => a.insert(30));
    expect(await setBackHiStores(db.url)).toBeGreaterThan(0);
    const refused = await outcome(using(open(), (a) => a.insert(1)));
    expect(refused.codes).toContain('HILO_STORE_BEHIND');
    const lifted = await using(open({ onStoreBehind: 'lift' }), (a) => a.insert(3));
    expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
    const after = await using(open(), (a) => a.insert(3));
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...lifted));
  }

  it("a pgSchema('shop') table: a store set back is refused or lifted", async () => {
    await refusedThenLifted((setting) => app({ schema: 'shop', ...setting }, { inSchema: true }));
  });

  it('a pool search_path hilo shares (its url carries it): a store set back is refused or lifted', async () => {
    const url = withSearchPath(db.url, 'shop');
    await refusedThenLifted((setting) => app({ url, ...setting }, { searchPath: 'shop' }));
  });

  it("a pool search_path hilo's connection lacks: the one schema with the table is probed, as public is", async () => {
    await refusedThenLifted((setting) => app({ ...setting }, { searchPath: 'shop' }));
  });

  it("a pool search_path hilo's connection lacks, the table's name in two schemas: refused once keys were handed out", async () => {
    // a second schema with a table of the same name: hilo cannot tell which one the application's pool writes to
    await runStatements(db.url, [
      'drop schema if exists shop2 cascade',
      'create schema shop2',
      'create table shop2.orders (id bigint primary key, note text)',
    ]);
    const result = await outcome(using(app({}, { searchPath: 'shop' }), (a) => a.insert(30)));
    expect(result.codes).toEqual(['HILO_CONFIGURATION']);
    expect(String((result.error as Error).message)).toMatch(/no table "orders".*pgSchema.*onMissingTable/s);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const { rows } = await admin.query('select count(*)::int as n from shop.orders').finally(() => admin.end());
    expect(rows[0].n).toBeLessThanOrEqual(10);
  });
});
