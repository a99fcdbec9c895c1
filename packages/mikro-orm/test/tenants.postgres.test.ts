// MikroORM's documented schema-per-tenant pattern: an entity with `schema: '*'`, `em.fork({ schema })` per request,
// tenant schemas made with `orm.schema.update({ schema })`. One segment and one store shared by the tenants, every
// block checked against every tenant's table (found in the catalog at each block, so a tenant created while the app
// runs is picked up): 60 saves over two tenants with keys at em.create(), then the store set back and a new process
// in either tenant refused, or lifted above every tenant's keys.
import { defineEntity, type MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { describePostgres, errorCodes, runStatements, setBackHiStores } from '@hilo/testing';
import { connect } from 'hilo-core';
import { HiLo, hiloKey, type HiLoOptions } from '../src/index.js';
import { initOrm } from './support/compat.js';

const TenantOrder = defineEntity({
  name: 'TenantOrder',
  tableName: 'tenant_orders',
  schema: '*',
  properties: { id: hiloKey() },
});

/** `orm.schema.update({ schema })` on MikroORM 7, `updateSchema({ schema })` on 6: a tenant's tables. */
async function addTenant(orm: MikroORM, schema: string): Promise<void> {
  await runStatements(orm.config.get('clientUrl'), [`create schema if not exists ${schema}`]);
  const generator = orm.schema as unknown as Record<string, ((o: { schema: string }) => Promise<void>) | undefined>;
  const update = generator.update ?? generator.updateSchema;
  await update!.call(generator, { schema });
}

describePostgres("mikro-orm: schema '*' with em.fork({ schema }), one store over every tenant", (db) => {
  const open = (options: HiLoOptions = {}): Promise<MikroORM> =>
    initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [TenantOrder],
      extensions: [HiLo.configure({ blockSize: 10, ...options })],
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
      const { rows } = await client.query<{ id: unknown }>(`select id from ${schema}.tenant_orders`);
      return rows.map((r) => Number(r.id));
    } finally {
      await client.close();
    }
  };
  const outcome = (work: Promise<unknown>) =>
    work.then(
      () => [] as string[],
      (error: unknown) => errorCodes(error),
    );

  it('keys at em.create() in every tenant; set back, a new process is refused in either tenant or lifted above both', async () => {
    const first = await open();
    atCreate = [];
    try {
      await addTenant(first, 'tenant_a');
      for (let i = 0; i < 30; i++) await save(first, 'tenant_a');
      // a tenant created while the app runs: its table is checked from the next block on
      await addTenant(first, 'tenant_b');
      for (let i = 0; i < 30; i++) await save(first, i % 2 === 0 ? 'tenant_b' : 'tenant_a');
    } finally {
      await first.close();
    }
    // the ORM warmed the segment at start: the first key is there at em.create()
    expect(atCreate[0]).toBe(true);
    const before = [...(await keysOf('tenant_a')), ...(await keysOf('tenant_b'))];
    expect(before).toHaveLength(60);
    expect(new Set(before).size).toBe(60);

    expect(await setBackHiStores(db.url)).toBeGreaterThan(0);
    // refused at start (the ORM warms its segments in init()) or at the tenant's first save, never a key
    for (const tenant of ['tenant_a', 'tenant_b']) {
      const refused = open().then(async (orm) => save(orm, tenant).finally(() => orm.close()));
      expect(await outcome(refused)).toContain('HILO_STORE_BEHIND');
    }
    const lifted = await open({ onStoreBehind: 'lift' });
    try {
      for (let i = 0; i < 20; i++) await save(lifted, i % 2 === 0 ? 'tenant_a' : 'tenant_b');
    } finally {
      await lifted.close();
    }
    const after = [...(await keysOf('tenant_a')), ...(await keysOf('tenant_b'))];
    expect(after).toHaveLength(80);
    expect(new Set(after).size).toBe(80);
  });

  it('a tenant created while the app runs, holding keys of the next block, refuses that block', async () => {
    // no block fetched ahead, so that the next block is reserved (and checked) after the tenant appears
    const orm = await open({ prefetchAt: false });
    try {
      await addTenant(orm, 'tenant_c');
      const keys: number[] = [];
      for (let i = 0; i < 5; i++) keys.push(await save(orm, 'tenant_c'));
      // a tenant restored from elsewhere while the app runs, with keys above those handed out
      await addTenant(orm, 'tenant_d');
      const top = Math.max(...keys);
      const restored = Array.from({ length: 40 }, (_, i) => top + 6 + i);
      await runStatements(db.url, [
        `insert into tenant_d.tenant_orders (id) values ${restored.map((k) => `(${k})`).join(', ')}`,
      ]);
      let codes: string[] = [];
      for (let i = 0; i < 20 && codes.length === 0; i++) {
        codes = await save(orm, 'tenant_c').then(
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
});
