// On MariaDB a "schema" is a database: a table registered with its database ('shop_db.orders') is the table the
// probe checks, and an application pool on another database than hilo's url is found out (the table stays missing
// for hilo once keys were handed out) instead of leaving the check off.
import { createPool } from 'mysql2';
import { Kysely, MysqlDialect, type MysqlDialectConfig } from 'kysely';
import { createMysqlDatabase, describeMysql, errorCodes, setBackHiStores, runStatements } from '@hilo/testing';
import { hiloKysely, type HiLoKyselyOptions } from '../src/index.js';

interface Shop {
  orders: { id: number; note: string };
}

describeMysql('kysely: verified blocks in another MariaDB database', (db) => {
  /** The database the application's rows are in; hilo's url names `db`. */
  let shop: Awaited<ReturnType<typeof createMysqlDatabase>>;
  beforeAll(async () => {
    shop = await createMysqlDatabase();
  });
  afterAll(async () => shop.drop());
  beforeEach(async () => {
    await runStatements(shop.url, [
      'drop table if exists orders',
      'create table orders (id bigint primary key, note text)',
    ]);
    await runStatements(db.url, ['drop sequence if exists orders_hilo_seq']);
    await runStatements(shop.url, ['drop sequence if exists orders_hilo_seq']);
  });

  type Setting = Omit<HiLoKyselyOptions, 'url' | 'client' | 'generator'>;
  /** An app: Kysely on a pool of `appUrl` (the database's by default), hilo on the database's url. */
  function app(setting: Setting, appUrl: string, withSchema?: string) {
    const hilo = hiloKysely({ url: db.url, blockSize: 10, ...setting });
    const pool = createPool({ uri: appUrl, connectionLimit: 2 });
    const kysely = new Kysely<Shop>({
      // mysql2's Pool type and Kysely 0.27's MysqlPool interface disagree on callback types; the pool is the same
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under Kysely 0.27 (kysely-compat)
      dialect: new MysqlDialect({ pool: pool as unknown as MysqlDialectConfig['pool'] }),
      plugins: [hilo.plugin],
    });
    const base = withSchema === undefined ? kysely : kysely.withSchema(withSchema);
    return {
      async insert(count: number): Promise<number[]> {
        const keys: number[] = [];
        for (let i = 0; i < count; i++) {
          const id = await hilo.nextId('orders');
          await base
            .insertInto('orders')
            .values({ id: Number(id), note: `row ${i}` })
            .execute();
          keys.push(Number(id));
        }
        return keys;
      },
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  }
  type App = ReturnType<typeof app>;
  const using = async <T>(a: App, work: (a: App) => Promise<T>): Promise<T> => work(a).finally(() => a.close());
  const codes = (work: Promise<unknown>) =>
    work.then(
      () => [] as string[],
      (error: unknown) => errorCodes(error),
    );

  it('a table registered with its database keeps its store there: set back, it is refused, and lifted when told', async () => {
    const open = (setting: Partial<Setting> = {}) =>
      app({ tables: { [`${shop.name}.orders`]: true }, ...setting }, db.url, shop.name);
    const stored = await using(open(), (a) => a.insert(30));
    // the store lives beside the table, in the tenant's database, not in the database of hilo's url (issue 53)
    expect(await setBackHiStores(shop.url)).toBeGreaterThan(0);
    expect(await codes(using(open(), (a) => a.insert(1)))).toContain('HILO_STORE_BEHIND');
    const lifted = await using(open({ onStoreBehind: 'lift' }), (a) => a.insert(3));
    expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
  });

  it("an application pool on another database than hilo's url: refused once keys were handed out", async () => {
    expect(await codes(using(app({ tables: { orders: true } }, shop.url), (a) => a.insert(30)))).toEqual([
      'HILO_CONFIGURATION',
    ]);
  });
});
