// Verified blocks follow the schema Prisma writes to: the driver adapter's `schema` option
// (`new PrismaPg(pool, { schema: 'shop' })`) qualifies the probe's table as it qualifies Prisma's statements, so a
// hi store set back below the rows in schema `shop` is refused (or lifted when told) exactly as in `public`. (A
// model's `@@schema` reaches the metadata through the generator: test/generator.test.ts; the probe reads it first.)
import { PrismaPg } from '@prisma/adapter-pg';
import { describePostgres, errorCodes, setBackHiStores } from '@hilo/testing';
import { hilo, type HiLoPrismaMetadata } from '../src/index.js';
import { execute, metadataFor } from './fixtures.js';
import { PrismaClient } from './generated/postgres/client.js';

describePostgres('prisma: verified blocks in a schema other than public', (db) => {
  beforeEach(async () => {
    await execute('postgres', db.url, [
      'drop schema if exists shop cascade',
      'create schema shop',
      'create table shop.customers (id bigint primary key, name text not null)',
    ]);
  });

  const base = metadataFor('postgres');
  /** The generated metadata with Customer's table in `shop`, as the generator writes it for `@@schema("shop")`. */
  const withSchema: HiLoPrismaMetadata = {
    ...base,
    models: { ...base.models, Customer: { ...base.models.Customer, schema: 'shop' } },
  };
  /** The metadata with Customer's table in another schema than the adapter's: the model's own schema wins. */
  const elsewhere: HiLoPrismaMetadata = {
    ...base,
    models: { ...base.models, Customer: { ...base.models.Customer, schema: 'elsewhere' } },
  };

  /** An app: Prisma through PrismaPg, whose `schema` option makes it write to shop.customers; hilo on the url. */
  function app(metadata: HiLoPrismaMetadata, options: { onStoreBehind?: 'lift' } = {}) {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }, { schema: 'shop' }) });
    const client = prisma.$extends(hilo({ metadata, url: db.url, blockSize: 10, ...options }));
    return {
      async insert(count: number): Promise<bigint[]> {
        const keys: bigint[] = [];
        for (let i = 0; i < count; i++) keys.push((await client.customer.create({ data: { name: `c${i}` } })).id);
        return keys;
      },
      async close() {
        await client.$hilo.close();
        await prisma.$disconnect();
      },
    };
  }
  type App = ReturnType<typeof app>;
  const using = async <T>(a: App, work: (a: App) => Promise<T>): Promise<T> => work(a).finally(() => a.close());
  const max = (keys: readonly bigint[]) => keys.reduce((a, b) => (a > b ? a : b));
  const min = (keys: readonly bigint[]) => keys.reduce((a, b) => (a < b ? a : b));

  const cases = [
    { title: "the driver adapter's schema option", metadata: base },
    { title: "the adapter's schema option and a model's @@schema", metadata: withSchema },
  ] as const;
  for (const { title, metadata } of cases) {
    it(`${title}: a hi store set back below the rows in shop is refused, and lifted above them when told`, async () => {
      const stored = await using(app(metadata), (a) => a.insert(30));
      expect(await setBackHiStores(db.url)).toBeGreaterThan(0);
      const refused = await using(app(metadata), (a) => a.insert(1)).then(
        () => [] as string[],
        (error: unknown) => errorCodes(error),
      );
      expect(refused).toContain('HILO_STORE_BEHIND');
      const lifted = await using(app(metadata, { onStoreBehind: 'lift' }), (a) => a.insert(3));
      expect(min(lifted) > max(stored)).toBe(true);
    });
  }

  it("a model's @@schema is where the probe looks, before the adapter's: a table missing there is refused", async () => {
    const result = await using(app(elsewhere), (a) => a.insert(30)).then(
      () => [] as string[],
      (error: unknown) => errorCodes(error),
    );
    expect(result).toEqual(['HILO_CONFIGURATION']);
  });
});
