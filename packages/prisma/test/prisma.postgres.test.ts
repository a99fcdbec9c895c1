import { describePostgres } from '@hilo/testing';
import pg from 'pg';
import { hilo } from '../src/index.js';
import { createBaseClient, metadataFor } from './fixtures.js';
import { prismaSuite } from './suite.js';

describePostgres('prisma: hilo extension on PostgreSQL, sequence source', (db) =>
  prismaSuite('postgres', db, 'sequence'),
);
describePostgres('prisma: hilo extension on PostgreSQL, table source', (db) => prismaSuite('postgres', db, 'table'));

// `strategy` and `create` reach the hi source as given in hilo(), as in every adapter.
describePostgres('prisma: hi source layout options', (db) => {
  const stored = async (table: string) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ next_value: string }>(
        `select next_value from ${table} where segment = 'customers'`,
      );
      return rows.map((row) => Number(row.next_value));
    } finally {
      await client.end();
    }
  };

  it('should not create a missing hi table with create: false, and say to run `hilo init`', async () => {
    const { prisma: base } = createBaseClient('postgres', db.url);
    const prisma = base.$extends(
      hilo({
        metadata: metadataFor('postgres'),
        url: db.url,
        source: 'table',
        table: 'prisma_missing_hi',
        create: false,
      }),
    );
    try {
      await expect(prisma.$hilo.warm()).rejects.toThrow(/hilo init/);
    } finally {
      await prisma.$hilo.close();
      await base.$disconnect();
    }
    await expect(stored('prisma_missing_hi')).rejects.toThrow(/does not exist/);
  });

  it("should store what the strategy says: range the last key of the block, pooled-lo the next block's first", async () => {
    const { prisma: base } = createBaseClient('postgres', db.url);
    const options = {
      metadata: metadataFor('postgres'),
      url: db.url,
      source: 'table',
      adaptive: false,
      prefetchAt: false,
    } as const;
    const pooledLo = base.$extends(hilo({ ...options, table: 'prisma_pooled_lo_hi' }));
    const range = base.$extends(hilo({ ...options, table: 'prisma_range_hi', strategy: 'range' }));
    try {
      await pooledLo.$hilo.warm();
      await range.$hilo.warm();
      const [next] = await stored('prisma_pooled_lo_hi');
      expect(next).toBeGreaterThan(1);
      expect(await stored('prisma_range_hi')).toEqual([next! - 1]);
    } finally {
      await pooledLo.$hilo.close();
      await range.$hilo.close();
      await base.$disconnect();
    }
  });
});
