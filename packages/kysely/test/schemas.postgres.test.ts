// Verified blocks follow the schema Kysely writes to: a table registered with its schema ('shop.orders') is the
// table the probe checks, an insert under another schema than the registered one (withSchema) is refused before a
// key is drawn, and with a pool whose connections carry a search_path that hilo's connection lacks, the one schema
// holding the table is probed; where several do, the table stays missing for hilo and is refused once keys were
// handed out, instead of leaving the check off.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describePostgres, errorCodes, setBackHiStores, runStatements, withSearchPath } from '@hilo/testing';
import { hiloKysely, type HiLoKyselyOptions } from '../src/index.js';

interface Shop {
  orders: { id: number; note: string };
}

describePostgres('kysely: verified blocks in a schema other than public', (db) => {
  beforeEach(async () => {
    await runStatements(db.url, [
      'drop schema if exists shop cascade',
      'create schema shop',
      'create table shop.orders (id bigint primary key, note text)',
    ]);
    await runStatements(db.url, [
      'drop sequence if exists public.orders_hilo_seq',
      'drop table if exists public.hilo_segments',
    ]);
  });

  type Setting = Omit<HiLoKyselyOptions, 'url' | 'client' | 'generator'> & { url?: string };
  /** An app: Kysely on a pool (with `search_path` when given), hilo on `url` (the database's by default). */
  async function app(setting: Setting, options: { searchPath?: string; schema?: string } = {}) {
    const hilo = hiloKysely({ url: db.url, blockSize: 10, ...setting });
    const pool = new pg.Pool({
      connectionString: options.searchPath === undefined ? db.url : withSearchPath(db.url, options.searchPath),
      max: 2,
    });
    const kysely = new Kysely<Shop>({ dialect: new PostgresDialect({ pool }), plugins: [hilo.plugin] });
    const base = options.schema === undefined ? kysely : kysely.withSchema(options.schema);
    return {
      /** Inserts `count` rows one by one; resolves with their keys, or rejects with the first error. */
      async insert(count: number): Promise<number[]> {
        const keys: number[] = [];
        for (let i = 0; i < count; i++) {
          const row = await hilo.insert(
            base
              .insertInto('orders')
              .values({ note: `row ${i}` } as never)
              .returning('id'),
          );
          keys.push(Number((row as Array<{ id: unknown }>)[0]!.id));
        }
        return keys;
      },
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  }
  type App = Awaited<ReturnType<typeof app>>;
  const using = async <T>(opened: Promise<App>, work: (a: App) => Promise<T>): Promise<T> => {
    const a = await opened;
    return work(a).finally(() => a.close());
  };
  const outcome = <T>(work: Promise<T>) =>
    work.then(
      (value) => ({ value, codes: [] as string[], error: undefined as unknown }),
      (error: unknown) => ({ value: undefined, codes: errorCodes(error), error }),
    );

  /** The store is set back below 30 stored rows: a new app refuses, lifts when told, and then starts as usual. */
  async function refusedThenLifted(open: (setting?: Partial<Setting>) => Promise<App>) {
    const stored = await using(open(), (a) => a.insert(30));
    expect(await setBackHiStores(db.url)).toBeGreaterThan(0);
    const refused = await outcome(using(open(), (a) => a.insert(1)));
    expect(refused.codes).toContain('HILO_STORE_BEHIND');
    const lifted = await using(open({ onStoreBehind: 'lift' }), (a) => a.insert(3));
    expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
    const after = await using(open(), (a) => a.insert(3));
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...lifted));
  }

  it("a table registered as 'shop.orders' and written withSchema('shop'): a store set back is refused or lifted", async () => {
    await refusedThenLifted((setting) =>
      app({ tables: { 'shop.orders': true }, schema: 'shop', ...setting }, { schema: 'shop' }),
    );
  });

  it("withSchema('shop') on a table registered without its schema is refused before a key is drawn", async () => {
    const result = await outcome(using(app({ tables: { orders: true } }, { schema: 'shop' }), (a) => a.insert(1)));
    expect(result.codes).toEqual(['HILO_CONFIGURATION']);
    expect(String((result.error as Error).message)).toContain("tables: { 'shop.orders'");
  });

  it('a pool search_path hilo shares (its url carries it): a store set back is refused or lifted', async () => {
    const url = withSearchPath(db.url, 'shop');
    await refusedThenLifted((setting) => app({ tables: { orders: true }, url, ...setting }, { searchPath: 'shop' }));
  });

  it("a pool search_path hilo's connection lacks: the one schema with the table is probed, as public is", async () => {
    await refusedThenLifted((setting) => app({ tables: { orders: true }, ...setting }, { searchPath: 'shop' }));
  });

  /** A second schema with a table of the same name: hilo cannot tell which one the application's pool writes to. */
  const twoSchemas = () =>
    runStatements(db.url, [
      'drop schema if exists shop2 cascade',
      'create schema shop2',
      'create table shop2.orders (id bigint primary key, note text)',
    ]);

  it("a pool search_path hilo's connection lacks, the table's name in two schemas: refused once keys were handed out", async () => {
    await twoSchemas();
    const result = await outcome(using(app({ tables: { orders: true } }, { searchPath: 'shop' }), (a) => a.insert(30)));
    expect(result.codes).toEqual(['HILO_CONFIGURATION']);
    expect(String((result.error as Error).message)).toMatch(/no table "orders".*onMissingTable/s);
    // at most the first block (10 keys) went out before the table was found missing for good
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const { rows } = await admin.query('select count(*)::int as n from shop.orders').finally(() => admin.end());
    expect(rows[0].n).toBeLessThanOrEqual(10);
  });

  it("onMissingTable: 'warn' goes on with a HILO_STORED_KEYS_UNCHECKED warning", async () => {
    await twoSchemas();
    const warnings: string[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
      warnings.push(String(options?.code));
    }) as typeof process.emitWarning;
    try {
      const keys = await using(app({ tables: { orders: true }, onMissingTable: 'warn' }, { searchPath: 'shop' }), (a) =>
        a.insert(25),
      );
      expect(keys).toHaveLength(25);
      expect(warnings.filter((c) => c === 'HILO_STORED_KEYS_UNCHECKED')).toHaveLength(1);
    } finally {
      process.emitWarning = emitWarning;
    }
  });
});
