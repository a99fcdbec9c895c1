// MikroORM's documented schema-per-tenant pattern: an entity with `schema: '*'`, `em.fork({ schema })` per request,
// a tenant's tables made by `orm.schema.update({ schema })` (PostgreSQL schemas) or a `create database` and its table
// (MariaDB: a tenant is a database). One segment and one store shared by the tenants, every block checked against
// every tenant's table (found in the catalog at each block, so a tenant created while the app runs is picked up): 60
// saves over two tenants with keys at em.create(), then the store set back and a new process in either tenant
// refused, or lifted above every tenant's keys. Both sources, on PostgreSQL and MariaDB.
import { defineEntity, type MikroORM } from '@mikro-orm/core';
import { describeDatabase, errorCodes, randomName, runStatements, type TestDatabase } from '@hilo/testing';
import { connect } from 'hilo-core';
import { HiLo, hiloKey, type HiLoOptions } from '../src/index.js';
import { initOrm } from './support/compat.js';
import { driverOptions } from './support/orm.js';

type Kind = 'sequence' | 'table';

export function runMikroOrmTenants(kind: 'postgres' | 'mysql'): void {
  describeDatabase(
    kind,
    `mikro-orm (${kind}): schema '*' with em.fork({ schema }), one store over every tenant`,
    (db) => describe.each(['sequence', 'table'] as const)('%s source', (source) => tenantTests(kind, db, source)),
  );
}

function tenantTests(kind: 'postgres' | 'mysql', db: TestDatabase, source: Kind): void {
  const q = (name: string) => (kind === 'postgres' ? `"${name}"` : `\`${name}\``);
  // a table name of its own (MariaDB's catalog is the server's: every database holding it is a tenant)
  const table = randomName('tenant_orders');
  const TenantOrder = defineEntity({
    name: 'TenantOrder',
    tableName: table,
    schema: '*',
    properties: { id: hiloKey() },
  });
  const made: string[] = [];
  afterAll(async () => {
    await runStatements(
      db.url,
      made.map((t) =>
        kind === 'postgres' ? `drop schema if exists ${q(t)} cascade` : `drop database if exists ${q(t)}`,
      ),
    );
  });

  /** A tenant's table: `orm.schema.update({ schema })` on PostgreSQL (MikroORM 7; `updateSchema` on 6), DDL on MariaDB. */
  async function addTenant(orm: MikroORM): Promise<string> {
    const tenant = randomName('tenant');
    made.push(tenant);
    if (kind === 'mysql') {
      await runStatements(db.url, [
        `create database ${q(tenant)}`,
        `create table ${q(tenant)}.${q(table)} (id bigint primary key)`,
      ]);
      return tenant;
    }
    await runStatements(db.url, [`create schema ${q(tenant)}`]);
    const generator = orm.schema as unknown as Record<string, ((o: { schema: string }) => Promise<void>) | undefined>;
    const update = generator.update ?? generator.updateSchema;
    await update!.call(generator, { schema: tenant });
    return tenant;
  }

  const open = (options: HiLoOptions = {}): Promise<MikroORM> =>
    initOrm({
      ...driverOptions(kind, db.url),
      entities: [TenantOrder],
      extensions: [HiLo.configure({ blockSize: 10, source, ...options })],
    });
  /** Whether each save's key was known at em.create(), in order (a burst past the prefetch waits for the flush). */
  let atCreate: boolean[] = [];
  /** One row in the tenant's table through a forked EntityManager; its key is known at em.create() when in memory. */
  const save = async (orm: MikroORM, schema: string): Promise<number> => {
    const em = orm.em.fork({ schema });
    const row = em.create(TenantOrder, {} as never) as { id: number | undefined };
    const created = row.id;
    await em.flush();
    // a key given at create is the key stored: never replaced at flush
    if (created !== undefined) expect(created).toBe(row.id);
    atCreate.push(created !== undefined);
    return Number(row.id);
  };
  const keysOf = async (schema: string): Promise<number[]> => {
    const client = await connect(db.url);
    try {
      const { rows } = await client.query<{ id: unknown }>(`select id from ${q(schema)}.${q(table)}`);
      return rows.map((r) => Number(r.id));
    } finally {
      await client.close();
    }
  };
  /** The store set back to its start, as a restore or reset would: the shared one, in hilo's default schema. */
  const setBack = () =>
    runStatements(db.url, [
      source === 'sequence'
        ? `alter sequence ${q(`${table}_hilo_seq`)} restart with 1`
        : `update ${q('hilo_segments')} set next_value = 1 where segment = '${table}'`,
    ]);
  const outcome = (work: Promise<unknown>) =>
    work.then(
      () => [] as string[],
      (error: unknown) => errorCodes(error),
    );

  it('keys at em.create() in every tenant; set back, a new process is refused in either tenant or lifted above both', async () => {
    const first = await open();
    atCreate = [];
    const ts: string[] = [];
    try {
      ts.push(await addTenant(first));
      for (let i = 0; i < 30; i++) await save(first, ts[0]!);
      // a tenant created while the app runs: its table is checked from the next block on
      ts.push(await addTenant(first));
      for (let i = 0; i < 30; i++) await save(first, ts[i % 2]!);
    } finally {
      await first.close();
    }
    // the ORM warmed the segment at start: the first key is there at em.create()
    expect(atCreate[0]).toBe(true);
    const before = [...(await keysOf(ts[0]!)), ...(await keysOf(ts[1]!))];
    expect(before).toHaveLength(60);
    expect(new Set(before).size).toBe(60);

    await setBack();
    // refused at start (the ORM warms its segments in init()) or at the tenant's first save, never a key
    for (const tenant of ts) {
      const refused = open().then(async (orm) => save(orm, tenant).finally(() => orm.close()));
      expect(await outcome(refused)).toContain('HILO_STORE_BEHIND');
    }
    const lifted = await open({ onStoreBehind: 'lift' });
    try {
      for (let i = 0; i < 20; i++) await save(lifted, ts[i % 2]!);
    } finally {
      await lifted.close();
    }
    const after = [...(await keysOf(ts[0]!)), ...(await keysOf(ts[1]!))];
    expect(after).toHaveLength(80);
    expect(new Set(after).size).toBe(80);
    expect(Math.min(...after.filter((k) => !before.includes(k)))).toBeGreaterThan(Math.max(...before));
  });

  it('a tenant created while the app runs, holding keys of the next block, refuses that block', async () => {
    // no block fetched ahead, so that the next block is reserved (and checked) after the tenant appears
    const orm = await open({ prefetchAt: false });
    try {
      const c = await addTenant(orm);
      const keys: number[] = [];
      for (let i = 0; i < 5; i++) keys.push(await save(orm, c));
      // a tenant restored from elsewhere while the app runs, with keys above those handed out
      const d = await addTenant(orm);
      const top = Math.max(...keys);
      const restored = Array.from({ length: 40 }, (_, i) => top + 6 + i);
      await runStatements(db.url, [
        `insert into ${q(d)}.${q(table)} (id) values ${restored.map((k) => `(${k})`).join(', ')}`,
      ]);
      let codes: string[] = [];
      for (let i = 0; i < 20 && codes.length === 0; i++) {
        codes = await save(orm, c).then(
          (key) => {
            keys.push(key);
            return [];
          },
          (error: unknown) => errorCodes(error),
        );
      }
      expect(codes).toContain('HILO_STORE_BEHIND');
      expect(keys.filter((k) => restored.includes(k))).toEqual([]);
    } finally {
      await orm.close();
    }
  });
}
