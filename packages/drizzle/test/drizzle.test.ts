// hilo-drizzle's own paths on each database: $defaultFn for a batch after ensure(), the typed error when
// the block is empty, keys visible before the insert inside db.transaction, and option checks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDatabase, expectSourceLayoutPassedThrough, randomName, type TestDatabase } from '@hilo/testing';
import {
  HiLoConfigurationError,
  HiLoNotReadyError,
  HiLoOverflowError,
  memorySource,
  createHiLoGenerator,
} from 'hilo-core';
import { keyToField } from 'hilo-core/adapter-kit';
import { HiLoDrizzleNotReadyError, hiloDrizzle } from 'hilo-drizzle';
import { createShopTables } from './support/conformance-harness.js';
import { hiloUrl, openShop, type Kind, type OpenShop } from './support/shop.js';
import { bigint as pgBigint, pgTable } from 'drizzle-orm/pg-core';
import { bigint as myBigint, mysqlTable } from 'drizzle-orm/mysql-core';
import { integer as liteInteger, sqliteTable } from 'drizzle-orm/sqlite-core';

function suite(kind: Kind, db: { url: string }): void {
  let shop: OpenShop;
  let url = '';
  beforeAll(async () => {
    url = db.url;
    await createShopTables(kind, db.url);
    shop = await openShop(kind, db.url, { blockSize: 20, adaptive: false });
  });
  afterAll(async () => shop?.close());

  it('the first $defaultFn before warm() throws the typed error naming ensure() and warm()', () => {
    const draw = (shop.tables.orders as any).id.defaultFn as () => number;
    let error: unknown;
    try {
      draw();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HiLoDrizzleNotReadyError);
    expect(error).toBeInstanceOf(HiLoNotReadyError);
    expect((error as Error).message).toMatch(/hilo\.warm\(\).*hilo\.ensure\(table, rows\.length\)/);
  });

  it('a batch larger than the block is inserted through $defaultFn after ensure()', async () => {
    const { db, hilo, tables } = shop;
    await hilo.warm();
    const customerId = (await hilo.nextId(tables.customers)) as number;
    await db.insert(tables.customers).values({ id: customerId, name: 'batch' });
    // 250 rows, block size 20: without ensure() the block would run dry halfway through values()
    await hilo.ensure(tables.orders, 250);
    await db.insert(tables.orders).values(Array.from({ length: 250 }, (_, i) => ({ customerId, total: i })));
    const stored = (await db.select().from(tables.orders)).filter(
      (o: { customerId: number }) => Number(o.customerId) === customerId,
    );
    expect(stored).toHaveLength(250);
    expect(new Set(stored.map((o: { id: number }) => Number(o.id))).size).toBe(250);
  });

  it('two definitions of one table with different segments are refused before a key is drawn (issue 46)', async () => {
    const hilo = hiloDrizzle({ url: hiloUrl(kind, url), blockSize: 10 });
    try {
      const column = (segment: string) =>
        kind === 'postgres'
          ? pgTable('orders', { id: pgBigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key(segment)) })
          : kind === 'mysql'
            ? mysqlTable('orders', {
                id: myBigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key(segment)),
              })
            : sqliteTable('orders', { id: liteInteger('id').primaryKey().$defaultFn(hilo.key(segment)) });
      const orders = column('orders');
      const copy = column(randomName('orders_copy'));
      const refused = hilo.warm([orders, copy]);
      await expect(refused).rejects.toThrow(HiLoConfigurationError);
      await expect(refused).rejects.toThrow(
        /Segments "orders" and "orders_copy_\w+" both store their keys in orders\.id/,
      );
      await expect(refused).rejects.toThrow(/Give each key column one segment/);
      // a second definition with the same segment (the same table declared twice) stays allowed
      await expect(hilo.warm([orders, column('orders')])).resolves.toBeUndefined();
      await expect(hilo.nextId(copy)).rejects.toThrow(HiLoConfigurationError);
    } finally {
      await hilo.close();
    }
  });

  it('keys are known before the insert, and a rolled-back transaction never reuses them', async () => {
    const { db, hilo, tables } = shop;
    const customerId = (await hilo.nextId(tables.customers)) as number;
    const orderId = (await hilo.nextId('orders')) as number;
    expect(typeof orderId).toBe('number');
    await expect(
      shop.write(
        (tx) => [
          tx.insert(tables.customers).values({ id: customerId, name: 'rolled back' }),
          tx.insert(tables.orders).values({ id: orderId, customerId, total: 1 }),
        ],
        () => {
          throw new Error('roll back');
        },
      ),
    ).rejects.toThrow('roll back');
    expect((await db.select().from(tables.orders)).map((o: { id: number }) => Number(o.id))).not.toContain(orderId);
    const after = await Promise.all(Array.from({ length: 30 }, () => hilo.nextId(tables.orders)));
    expect(after).not.toContain(orderId);
  });

  if (kind !== 'sqlite') {
    // better-sqlite3 transactions are synchronous, so there is nothing to await inside them
    it("inside db.transaction, nextId() and ensure() reserve on hilo's own connection, which the rollback leaves alone", async () => {
      const { db, hilo, tables } = shop;
      const drawn: number[] = [];
      await expect(
        db.transaction(async (tx: any) => {
          const customerId = (await hilo.nextId(tables.customers)) as number;
          await tx.insert(tables.customers).values({ id: customerId, name: 'in tx' });
          // 100 keys with blocks of 20: several reservations while this transaction is open
          await hilo.ensure(tables.orders, 100);
          for (let i = 0; i < 100; i++) drawn.push((tables.orders as any).id.defaultFn());
          await tx.insert(tables.orders).values(drawn.map((id, i) => ({ id, customerId, total: i })));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const later = await Promise.all(Array.from({ length: 150 }, () => hilo.nextId(tables.orders)));
      expect(later.filter((key) => drawn.includes(key as number))).toEqual([]);
      // and a new instance (a restart) continues after the rolled-back reservations too
      const restarted = await openShop(kind, url, { blockSize: 20, adaptive: false });
      try {
        const fresh = await Promise.all(Array.from({ length: 30 }, () => restarted.hilo.nextId('orders')));
        expect(fresh.filter((key) => drawn.includes(key as number))).toEqual([]);
      } finally {
        await restarted.close();
      }
    });
  }
}

describeDatabase('postgres', 'hilo-drizzle on postgres', (db: TestDatabase) => suite('postgres', db));
describeDatabase('mysql', 'hilo-drizzle on mysql', (db: TestDatabase) => suite('mysql', db));
describe('hilo-drizzle on sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  suite('sqlite', { url: join(dir, 'shop.db') });
});

describe('hilo-drizzle options', () => {
  it('needs exactly one of url, client or generator', () => {
    expect(() => hiloDrizzle({})).toThrow(HiLoConfigurationError);
    expect(() => hiloDrizzle({})).toThrow(/exactly one of `url`, `client` or `generator`, got 0/);
    expect(() =>
      hiloDrizzle({ url: 'sqlite:x.db', generator: createHiLoGenerator({ source: memorySource() }) }),
    ).toThrow(/got 2/);
  });

  it('refuses an unknown key type and a segment used with two key types', () => {
    const hilo = hiloDrizzle({ generator: createHiLoGenerator({ source: memorySource(), keyType: 'bigint' }) });
    expect(() => hilo.key('orders', 'float' as never)).toThrow(/`as` to be "number", "bigint" or "string"/);
    hilo.key('orders', 'bigint');
    expect(() => hilo.key('orders', 'number')).toThrow(/already used with as = "bigint"/);
  });

  it('a generator you pass is used and left open; bigint keys come as bigint', async () => {
    const generator = createHiLoGenerator({ source: memorySource(), keyType: 'bigint' });
    const hilo = hiloDrizzle({ generator });
    const key = hilo.key('orders', 'bigint');
    await hilo.warm();
    expect(typeof key()).toBe('bigint');
    expect(typeof (await key.next())).toBe('bigint');
    await hilo.close();
    await expect(generator.next('orders')).resolves.toBeDefined();
    await generator.close();
  });

  it('passes the hi source layout through: `strategy` shapes the stored value, `create: false` leaves a missing table missing', () =>
    expectSourceLayoutPassedThrough((options) => {
      const hilo = hiloDrizzle(options);
      return { nextId: () => hilo.nextId('orders'), close: () => hilo.close() };
    }));

  it('a key beyond Number.MAX_SAFE_INTEGER is refused for a number column', () => {
    expect(() => keyToField(2n ** 60n, 'number', 'orders.id')).toThrow(HiLoOverflowError);
    expect(() => keyToField(2n ** 60n, 'number', 'orders.id')).toThrow(/orders\.id.*mode: 'bigint'/);
    expect(keyToField(2n ** 60n, 'bigint', 'orders.id')).toBe(2n ** 60n);
  });
});
