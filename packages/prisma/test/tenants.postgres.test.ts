// Prisma's multi-tenant pattern: one client per tenant schema (`new PrismaPg(pool, { schema })`). Each tenant's hi
// store lives beside its tables by default, so no tenant draws from a counter another tenant's table was filled from:
// 60 saves over two tenants, then tenant A's store set back (its sequence restarted at 1) and a new client of tenant
// A refused, or lifted above tenant A's keys, never handing out a key its table holds.
import { PrismaPg } from '@prisma/adapter-pg';
import { describePostgres, errorCodes } from '@hilo/testing';
import { connect } from 'hilo-core';
import { hilo } from '../src/index.js';
import { execute, metadataFor } from './fixtures.js';
import { PrismaClient } from './generated/postgres/client.js';

describePostgres('prisma: a client per tenant schema keeps its store beside its tables', (db) => {
  const tenants = ['tenant_a', 'tenant_b'] as const;
  beforeAll(async () => {
    await execute(
      'postgres',
      db.url,
      tenants.flatMap((t) => [
        `create schema ${t}`,
        `create table ${t}.customers (id bigint primary key, name text not null)`,
      ]),
    );
  });
  const metadata = metadataFor('postgres');
  function app(tenant: string, options: { onStoreBehind?: 'lift' } = {}) {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.url }, { schema: tenant }) });
    const client = prisma.$extends(hilo({ metadata, url: db.url, blockSize: 10, ...options }));
    return {
      insert: async () => (await client.customer.create({ data: { name: tenant } })).id,
      async close() {
        await client.$hilo.close();
        await prisma.$disconnect();
      },
    };
  }
  const query = async (sql: string) => {
    const client = await connect(db.url);
    try {
      return (await client.query<{ id: unknown }>(sql)).rows;
    } finally {
      await client.close();
    }
  };
  const keysOf = async (tenant: string) =>
    (await query(`select id from ${tenant}.customers`)).map((r) => BigInt(String(r.id)));

  it('60 saves over two tenants; set back, a new client of the tenant is refused, or lifted above its keys', async () => {
    const apps = tenants.map((t) => app(t));
    try {
      for (let i = 0; i < 60; i++) await apps[i % 2]!.insert();
    } finally {
      for (const a of apps) await a.close();
    }
    for (const t of tenants) {
      expect(new Set(await keysOf(t)).size).toBe(30);
      expect(
        await query(`select 1 as id from pg_sequences where schemaname = '${t}' and sequencename like 'customers%'`),
      ).toHaveLength(1);
    }
    await execute('postgres', db.url, [`alter sequence tenant_a.customers_hilo_seq restart with 1`]);
    const before = await keysOf('tenant_a');
    const refusing = app('tenant_a');
    const refused = await refusing
      .insert()
      .then(
        () => [] as string[],
        (error: unknown) => errorCodes(error),
      )
      .finally(() => refusing.close());
    expect(refused).toContain('HILO_STORE_BEHIND');
    const lifting = app('tenant_a', { onStoreBehind: 'lift' });
    const lifted: bigint[] = [];
    try {
      for (let i = 0; i < 15; i++) lifted.push(await lifting.insert());
    } finally {
      await lifting.close();
    }
    expect(lifted.filter((k) => before.includes(k))).toEqual([]);
  });
});
