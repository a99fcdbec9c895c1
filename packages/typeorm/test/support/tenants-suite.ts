// TypeORM's multi-tenant pattern: one DataSource per tenant (`schema` on PostgreSQL, `database` on MariaDB). Each
// tenant's hi store lives beside its tables by default, so no tenant draws from a counter another tenant's table was
// filled from: 60 saves over two tenants, then tenant A's store set back (sequence restarted at 1, hi row set to 1)
// and a new DataSource of tenant A refused, or lifted above tenant A's keys, never handing out a key its table holds.
import 'reflect-metadata';
import { Column, DataSource, Entity } from 'typeorm';
import { errorCodes, randomName, runStatements, type TestDatabase } from '@hilo/testing';
import { connect } from 'hilo-core';
import { HiLoGeneratedColumn, installHiLo, type HiLoTypeOrmOptions } from 'hilo-typeorm';

@Entity({ name: 'tenant_orders' })
class TenantOrder {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 50, default: '' }) note!: string;
}

/** The messages of an error and of every error in its `cause` chain. */
function messages(error: unknown): string {
  const all: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) all.push(e.message);
  return all.join(' | ');
}

export function tenantsSuite(db: TestDatabase, source: 'sequence' | 'table'): void {
  // (a describe of its own: its afterAll drops the tenants before the test database goes)
  describe('two tenants, blocks of 10', () => tenantTests(db, source));
}

function tenantTests(db: TestDatabase, source: 'sequence' | 'table'): void {
  const postgres = db.kind === 'postgres';
  const q = (name: string) => (postgres ? `"${name}"` : `\`${name}\``);
  const tenants = [randomName('tenant'), randomName('tenant')] as const;
  beforeAll(async () => {
    await runStatements(
      db.url,
      tenants.flatMap((t) => [
        `create schema ${q(t)}`,
        `create table ${q(t)}.tenant_orders (id bigint primary key, note varchar(50) not null default '')`,
      ]),
    );
  });
  afterAll(async () => {
    await runStatements(
      db.url,
      tenants.map((t) => `drop schema ${q(t)}${postgres ? ' cascade' : ''}`),
    );
  });

  /** The URL of the tenant's database (MariaDB), as a DataSource per tenant database has it. */
  const urlOf = (tenant: string): string => {
    const url = new URL(db.url);
    url.pathname = `/${tenant}`;
    return url.toString();
  };
  /** The tenant's DataSource, as an app makes one per tenant, with hilo installed. */
  const open = async (tenant: string, options: HiLoTypeOrmOptions = {}): Promise<DataSource> => {
    const dataSource = new DataSource(
      postgres
        ? { type: 'postgres', url: db.url, schema: tenant, entities: [TenantOrder] }
        : { type: 'mysql', url: urlOf(tenant), entities: [TenantOrder] },
    );
    await dataSource.initialize();
    try {
      await installHiLo(dataSource, { blockSize: 10, source, ...options });
    } catch (error) {
      await dataSource.destroy();
      throw error;
    }
    return dataSource;
  };
  const save = async (dataSource: DataSource) =>
    Number((await dataSource.getRepository(TenantOrder).save({ note: 'x' })).id);
  const keysOf = async (tenant: string): Promise<number[]> => {
    const client = await connect(db.url);
    try {
      const { rows } = await client.query<{ id: unknown }>(`select id from ${q(tenant)}.tenant_orders`);
      return rows.map((r) => Number(r.id));
    } finally {
      await client.close();
    }
  };

  it("each tenant's store sits beside its table; set back, a new DataSource of the tenant is refused or lifted", async () => {
    const [a, b] = tenants;
    const sources = [await open(a), await open(b)];
    try {
      for (let i = 0; i < 60; i++) await save(sources[i % 2]!);
    } finally {
      for (const s of sources) await s.destroy();
    }
    for (const t of tenants) {
      const keys = await keysOf(t);
      expect(keys).toHaveLength(30);
      expect(new Set(keys).size).toBe(30);
      // the tenant's store is in the tenant's schema (database)
      const found = await runQuery(
        source === 'sequence'
          ? postgres
            ? `select 1 from pg_sequences where schemaname = '${t}' and sequencename = 'tenant_orders_hilo_seq'`
            : `select 1 from information_schema.tables where table_schema = '${t}' and table_name = 'tenant_orders_hilo_seq'`
          : `select 1 from ${q(t)}.hilo_segments where segment = 'tenant_orders'`,
      );
      expect(found).toBe(1);
    }
    await runStatements(db.url, [
      source === 'sequence'
        ? `alter sequence ${q(a)}.tenant_orders_hilo_seq restart with 1`
        : `update ${q(a)}.hilo_segments set next_value = 1 where segment = 'tenant_orders'`,
    ]);
    const before = await keysOf(a);
    const refused = await open(a)
      .then(async (s) => save(s).finally(() => s.destroy()))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(errorCodes(refused)).toContain('HILO_STORE_BEHIND');
    // the refusal names the tenant's schema (database) of the table, and a floor that is safe for it
    expect(messages(refused)).toContain(`${a}.tenant_orders.id`);
    const lifting = await open(a, { onStoreBehind: 'lift' });
    const lifted: number[] = [];
    try {
      for (let i = 0; i < 15; i++) lifted.push(await save(lifting));
    } finally {
      await lifting.destroy();
    }
    expect(lifted.filter((k) => before.includes(k))).toEqual([]);
    expect(new Set(await keysOf(a)).size).toBe(45);
  });

  /** How many rows a query returns, on the test's own connection. */
  const runQuery = async (sql: string): Promise<number> => {
    const client = await connect(db.url);
    try {
      return (await client.query(sql)).rows.length;
    } finally {
      await client.close();
    }
  };
}
