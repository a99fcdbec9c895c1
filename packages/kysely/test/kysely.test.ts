// hilo-kysely's own paths on each database: the plugin filling missing keys (whole column missing, some
// rows without a key, unregistered tables left alone), insert() for batches larger than the block, the
// typed error when plain execute() finds the block empty, and keys inside db.transaction().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDatabase, expectSourceLayoutPassedThrough, type TestDatabase } from '@hilo/testing';
import { createHiLoGenerator, HiLoConfigurationError, HiLoNotReadyError, memorySource } from 'hilo-core';
import { HiLoKyselyNotReadyError, hiloKysely } from 'hilo-kysely';
import { Kysely, sql } from 'kysely';
import { loadedKyselyVersion } from './support/kysely-version.js';
import { createShopTables, openShop, type Kind, type OpenShop } from './support/shop.js';

function suite(kind: Kind, db: { url: string }): void {
  let shop: OpenShop;
  let url = '';
  beforeAll(async () => {
    url = db.url;
    await createShopTables(kind, db.url);
    shop = await openShop(kind, db.url, { blockSize: 20, adaptive: false });
  });
  afterAll(async () => shop?.close());

  it('plain execute() before any key is in memory throws the typed error naming insert() and ensure()', async () => {
    const error = await shop.db
      .insertInto('customers')
      .values({ name: 'too early' })
      .execute()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoKyselyNotReadyError);
    expect(error).toBeInstanceOf(HiLoNotReadyError);
    expect((error as Error).message).toMatch(/hilo\.insert\(query\).*hilo\.ensure\("customers", rows\)/);
    expect(await shop.db.selectFrom('customers').selectAll().where('name', '=', 'too early').execute()).toEqual([]);
  });

  it('fills the keys the rows lack, keeps the ones they carry, and insert() serves a batch larger than the block', async () => {
    const { db, hilo } = shop;
    await hilo.warm();
    const own = (await hilo.nextId('customers')) as number;
    await db
      .insertInto('customers')
      .values([{ name: 'filled' }, { id: own, name: 'own key' }])
      .execute();
    const customers = await db.selectFrom('customers').selectAll().where('name', 'in', ['filled', 'own key']).execute();
    expect(customers).toHaveLength(2);
    expect(Number(customers.find((c) => c.name === 'own key')!.id)).toBe(own);
    const filled = Number(customers.find((c) => c.name === 'filled')!.id);
    expect(filled).toBeGreaterThan(0);
    expect(filled).not.toBe(Number(own));

    // rows of one shape compile to plain parameter lists: a null key is filled there, a given key kept
    const given = (await hilo.nextId('customers')) as number;
    const plain = db
      .insertInto('customers')
      .values([
        { id: null as never, name: 'null key' },
        { id: given, name: 'given' },
      ])
      .compile();
    expect(plain.parameters).toEqual([expect.any(Number), 'null key', given, 'given']);
    expect(plain.parameters[0]).not.toBe(given);

    // 120 rows, blocks of 20: insert() puts 120 keys in memory before the plugin needs them
    await hilo.insert(
      db.insertInto('orders').values(Array.from({ length: 120 }, (_, i) => ({ customer_id: filled, total: i }))),
    );
    const orders = await db.selectFrom('orders').select('id').where('customer_id', '=', filled).execute();
    expect(orders).toHaveLength(120);
    expect(new Set(orders.map((o) => Number(o.id))).size).toBe(120);
  });

  it('refuses an INSERT … SELECT that leaves the key out, naming the fix, and lets one that selects the key through', async () => {
    const { db, hilo } = shop;
    await hilo.warm();
    const before = await db.selectFrom('customers').select('id').execute();
    const keyless = db
      .insertInto('customers')
      .columns(['name'])
      .expression(db.selectFrom('customers').select('name').limit(1));
    expect(() => keyless.compile()).toThrow(HiLoConfigurationError);
    expect(() => keyless.compile()).toThrow(
      /INSERT … SELECT into "customers".*Add "id" to columns\(\) and to the select, or insert the rows with values\(\)/,
    );
    await expect(hilo.insert(keyless)).rejects.toThrow(HiLoConfigurationError);
    expect(await db.selectFrom('customers').select('id').execute()).toEqual(before);

    const key = (await hilo.nextId('customers')) as number;
    await db
      .insertInto('customers')
      .columns(['id', 'name'])
      .expression(db.selectNoFrom([sql<number>`${key}`.as('id'), sql<string>`${'selected'}`.as('name')]))
      .execute();
    const selected = await db.selectFrom('customers').select('id').where('name', '=', 'selected').execute();
    expect(selected.map((row) => Number(row.id))).toEqual([key]);
  });

  it('refuses, naming the plugin line, an insert() built on a Kysely that does not run this hilo', async () => {
    const { db, hilo } = shop;
    await hilo.warm();
    const without = db.withoutPlugins();
    const named = 'forgotten plugin';
    const error = await hilo.insert(without.insertInto('customers').values({ name: named })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoConfigurationError);
    expect((error as Error).message).toMatch(
      /"customers" built on a Kysely instance that does not run this hilo's plugin.*plugins: \[hilo\.plugin\].*withPlugin\(hilo\.plugin\)/,
    );
    // another hilo's plugin is not this one's
    const other = hiloKysely({ generator: await hilo.generator(), tables: { unrelated: true } });
    await expect(
      hilo.insert(without.withPlugin(other.plugin).insertInto('customers').values({ name: named })),
    ).rejects.toThrow(HiLoConfigurationError);
    expect(await db.selectFrom('customers').select('id').where('name', '=', named).execute()).toEqual([]);
    // rows that carry their keys, and tables hilo does not key, need no plugin
    const key = (await hilo.nextId('customers')) as number;
    await hilo.insert(without.insertInto('customers').values({ id: key, name: named }));
    expect(
      (await db.selectFrom('customers').select('id').where('name', '=', named).execute()).map((r) => Number(r.id)),
    ).toEqual([key]);
  });

  it('leaves tables it does not know alone', async () => {
    const { hilo } = shop;
    const other = hiloKysely({ generator: await hilo.generator(), tables: { unrelated: true } });
    const untouched = shop.db
      .withoutPlugins()
      .withPlugin(other.plugin)
      .insertInto('customers')
      .values({ name: 'x' })
      .compile();
    expect(untouched.sql).not.toMatch(/id/);
    expect(untouched.parameters).toEqual(['x']);
    // the same insert through the shop's plugin gets its key
    const filled = shop.db.insertInto('customers').values({ name: 'x' }).compile();
    expect(filled.sql).toMatch(/id/);
    expect(filled.parameters).toHaveLength(2);
  });

  it('fills the key of insertInto().defaultValues(), a row with only its key (Kysely 0.28 and later)', async () => {
    const version = await loadedKyselyVersion(Kysely);
    const visits = hiloKysely({ generator: await shop.hilo.generator(), tables: { visits: true } });
    const db = shop.db.withoutPlugins().withPlugin(visits.plugin);
    type DefaultValues = { defaultValues?: () => { execute(): Promise<unknown> } };
    if (/^0\.27\./.test(version ?? '')) {
      // 0.27 has no defaultValues(): there is nothing for hilo to fill
      expect((db.insertInto('visits' as never) as unknown as DefaultValues).defaultValues).toBeUndefined();
      return;
    }
    await db.schema
      .createTable('visits')
      .ifNotExists()
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('note', 'varchar(20)', (c) => c.defaultTo('none'))
      .execute();
    await visits.ensure('visits', 2);
    for (let i = 0; i < 2; i++)
      await (db.insertInto('visits' as never) as unknown as DefaultValues).defaultValues!().execute();
    const rows = (await db
      .selectFrom('visits' as never)
      .selectAll()
      .execute()) as unknown as Array<{ id: unknown; note: string }>;
    expect(rows.map((r) => r.note)).toEqual(['none', 'none']);
    expect(new Set(rows.map((r) => Number(r.id))).size).toBe(2);
    expect(rows.every((r) => Number(r.id) > 0)).toBe(true);
  });

  it("inside db.transaction(), keys come from hilo's own connection and a rollback never reuses them", async () => {
    const { db, hilo } = shop;
    let orderIds: number[] = [];
    // SQLite has one writer: while this transaction writes, hilo's own connection cannot reserve, so the
    // keys are put in memory before it starts (the README says so)
    if (kind === 'sqlite') await Promise.all([hilo.ensure('customers', 1), hilo.ensure('orders', 60)]);
    await expect(
      db.transaction().execute(async (trx) => {
        const customerId = (await hilo.nextId('customers')) as number;
        await trx.insertInto('customers').values({ id: customerId, name: 'in tx' }).execute();
        // 60 rows with blocks of 20: reservations while this transaction is open (not on SQLite, see above)
        await hilo.insert(
          trx
            .insertInto('orders')
            .values(Array.from({ length: 60 }, (_, i) => ({ customer_id: customerId, total: i }))),
        );
        orderIds = (await trx.selectFrom('orders').select('id').where('customer_id', '=', customerId).execute()).map(
          (o) => Number(o.id),
        );
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(orderIds).toHaveLength(60);
    expect(await db.selectFrom('customers').selectAll().where('name', '=', 'in tx').execute()).toEqual([]);
    const later = await Promise.all(Array.from({ length: 100 }, () => hilo.nextId('orders')));
    expect(later.filter((key) => orderIds.includes(key as number))).toEqual([]);
    const restarted = await openShop(kind, url, { blockSize: 20, adaptive: false });
    try {
      const fresh = await Promise.all(Array.from({ length: 30 }, () => restarted.hilo.nextId('orders')));
      expect(fresh.filter((key) => orderIds.includes(key as number))).toEqual([]);
    } finally {
      await restarted.close();
    }
  });
}

describeDatabase('postgres', 'hilo-kysely on postgres', (db: TestDatabase) => suite('postgres', db));
describeDatabase('mysql', 'hilo-kysely on mysql', (db: TestDatabase) => suite('mysql', db));
describe('hilo-kysely on sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-kysely-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  suite('sqlite', { url: join(dir, 'shop.db') });
});

describe('hilo-kysely options', () => {
  const generator = () => createHiLoGenerator({ source: memorySource(), keyType: 'bigint' });
  it('needs tables and exactly one of url, client or generator', () => {
    expect(() => hiloKysely({ tables: { orders: true } })).toThrow(
      /hiloKysely\(\) needs exactly one of `url`, `client` or `generator`, got 0/,
    );
    expect(() => hiloKysely({ generator: generator(), tables: {} })).toThrow(HiLoConfigurationError);
    expect(() => hiloKysely({ generator: generator(), tables: {} })).toThrow(/`tables`/);
    expect(() => hiloKysely({ generator: generator(), tables: { orders: { as: 'float' as never } } })).toThrow(
      /`tables\.orders\.as`/,
    );
  });

  it('passes the hi source layout through: `strategy` shapes the stored value, `create: false` leaves a missing table missing', () =>
    expectSourceLayoutPassedThrough((options) => {
      const hilo = hiloKysely({ ...options, tables: { orders: true } });
      return { nextId: () => hilo.nextId('orders'), close: () => hilo.close() };
    }));

  it('nextId() of an unregistered table says how to register it; bigint and string keys come as asked', async () => {
    const hilo = hiloKysely({
      generator: generator(),
      tables: { orders: { as: 'bigint' }, items: { as: 'string', segment: 'order_items' } },
    });
    await expect(hilo.nextId('customers')).rejects.toThrow(
      /"customers" is not registered with hiloKysely\(\); add it to `tables`/,
    );
    expect(typeof (await hilo.nextId('orders'))).toBe('bigint');
    expect(typeof (await hilo.nextId('items'))).toBe('string');
  });
});
