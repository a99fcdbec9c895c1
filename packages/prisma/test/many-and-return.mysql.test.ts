/**
 * `createManyAndReturn` on MariaDB/MySQL, where Prisma has none (Prisma issue 24590): hilo's keys are known before
 * the INSERT, so the extension adds the method — one `createMany` and one `findMany` by those keys — and returns
 * the rows in the order of `data`.
 */
import { describeMysql } from '@hilo/testing';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { HiLoConfigurationError } from 'hilo-core';
import { hilo } from '../src/index.js';
import { countRows, createSchema } from './fixtures.js';
import { PrismaClient } from './generated/mysql/client.js';
import { hiloMetadata } from './generated/mysql/hilo.js';

function clients(url: string) {
  const queries: string[] = [];
  const base = new PrismaClient({
    adapter: new PrismaMariaDb(url.replace(/^mysql:/, 'mariadb:')),
    log: [{ emit: 'event', level: 'query' }],
  });
  base.$on('query', (e) => queries.push(e.query));
  return { base, queries, prisma: base.$extends(hilo({ metadata: hiloMetadata, url })) };
}

describeMysql('prisma: createManyAndReturn on MariaDB', (db) => {
  let c: ReturnType<typeof clients>;
  let customerId: bigint;
  /** Keys the extension's generator hands out in blocks of more than one, as they leave it. */
  const handedOut: bigint[] = [];

  beforeAll(async () => {
    await createSchema('mysql', db.url);
    c = clients(db.url);
    customerId = (await c.prisma.customer.create({ data: { name: 'Ada' } })).id;
    const generator = (await c.prisma.$hilo.generator()) as { reserve(segment: string, n: number): Promise<bigint[]> };
    const reserve = generator.reserve.bind(generator);
    generator.reserve = async (segment, n) => {
      const keys = await reserve(segment, n);
      handedOut.push(...keys);
      return keys;
    };
  });
  afterAll(async () => {
    await c?.prisma.$hilo.close();
    await c?.base.$disconnect();
  });

  it('is missing from the plain client, which is why hilo adds it', async () => {
    // @ts-expect-error Prisma generates no createManyAndReturn for the mysql provider
    const missing: unknown = c.base.order.createManyAndReturn;
    // the runtime has the method, and refuses the operation
    const plain = missing as (args: unknown) => Promise<unknown>;
    await expect(plain.call(c.base.order, { data: [{ id: 1n, reference: 'plain', customerId }] })).rejects.toThrow(
      /createManyAndReturn/,
    );
    expect(await countRows('mysql', db.url, `orders where reference = 'plain'`)).toBe(0);
  });

  it('returns the rows in the order of data, with the keys hilo filled and the keys the caller set', async () => {
    // keys set by the caller, out of order, between rows whose keys hilo fills (larger ones): the database's
    // key order is not the input order
    const own = await c.prisma.order.reserveIds(3);
    handedOut.length = 0;
    const data = [
      { id: own[2]!, reference: 'order-a', customerId },
      { reference: 'order-b', customerId },
      { id: own[0]!, reference: 'order-c', customerId },
      { reference: 'order-d', customerId },
      { id: own[1]!, reference: 'order-e', customerId },
    ];
    c.queries.length = 0;
    const rows: { id: bigint; reference: string; customerId: bigint }[] = await c.prisma.order.createManyAndReturn({
      data,
    });
    expect(rows.map((r) => r.reference)).toEqual(['order-a', 'order-b', 'order-c', 'order-d', 'order-e']);
    expect(handedOut).toHaveLength(2);
    expect(rows.map((r) => r.id)).toEqual([own[2], handedOut[0], own[0], handedOut[1], own[1]]);
    expect(rows.every((r) => r.customerId === customerId)).toBe(true);
    // one INSERT and one SELECT, in one transaction
    expect(c.queries.filter((q) => /^(INSERT|SELECT)/.test(q))).toEqual([
      expect.stringMatching(/^INSERT INTO `orders`/),
      expect.stringMatching(/^SELECT .* FROM `orders` WHERE `orders`.`id` IN \(\?,\?,\?,\?,\?\)/),
    ]);
    expect(c.queries.at(-1)).toMatch(/COMMIT/); // Prisma 7 logs `-- Implicit "COMMIT" query…`, Prisma 6 `COMMIT`
    // the caller's objects keep their shape: no key written into them
    expect(data[1]).toEqual({ reference: 'order-b', customerId });
  });

  it("takes findMany's select, omit and include, and sorts without a selected key", async () => {
    const keys = await c.prisma.orderItem.reserveIds(4);
    const [order] = await c.prisma.order.createManyAndReturn({
      data: [{ reference: 'order-with-items', customerId }],
      select: { id: true },
    });
    const items = [3, 1, 0, 2].map((n) => ({ id: keys[n]!, orderId: order!.id, sku: `sku-${n}`, quantity: n }));
    const selected = await c.prisma.orderItem.createManyAndReturn({ data: items, select: { sku: true } });
    expect(selected).toEqual(['sku-3', 'sku-1', 'sku-0', 'sku-2'].map((sku) => ({ sku })));
    // @ts-expect-error the key was not selected
    void selected[0]!.id;

    const omitted = await c.prisma.order.createManyAndReturn({
      data: [2, 1].map((n) => ({ reference: `omit-${n}`, customerId })),
      omit: { id: true },
    });
    expect(omitted).toEqual([2, 1].map((n) => ({ reference: `omit-${n}`, customerId })));

    // a to-many relation, which Prisma's own createManyAndReturn cannot include
    const customers = await c.prisma.customer.createManyAndReturn({
      data: [{ name: 'Grace' }, { id: customerId + 1_000_000n, name: 'Edsger' }],
      include: { orders: true, profile: true },
    });
    expect(customers.map((x) => [x.name, x.orders, x.profile])).toEqual([
      ['Grace', [], null],
      ['Edsger', [], null],
    ]);
    const withOrders = await c.prisma.order.createManyAndReturn({
      data: { reference: 'single-object', customerId },
      include: { items: true, customer: { select: { name: true } } },
    });
    expect(withOrders).toEqual([
      expect.objectContaining({ reference: 'single-object', items: [], customer: { name: 'Ada' } }),
    ]);
  });

  it('returns nothing for no data, without a statement', async () => {
    c.queries.length = 0;
    expect(await c.prisma.order.createManyAndReturn({ data: [] })).toEqual([]);
    expect(c.queries).toEqual([]);
  });

  it('runs on the transaction client inside $transaction, and is rolled back with it', async () => {
    const references = ['tx-1', 'tx-2', 'tx-3'];
    let returned: { id: bigint; reference: string }[] = [];
    await expect(
      c.prisma.$transaction(async (tx) => {
        returned = await tx.order.createManyAndReturn({
          data: references.map((reference) => ({ reference, customerId })),
        });
        // the transaction sees its own rows: INSERT and SELECT ran in it
        expect(await tx.order.count({ where: { reference: { in: references } } })).toBe(3);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(returned.map((r) => r.reference)).toEqual(references);
    expect(await countRows('mysql', db.url, `orders where reference like 'tx-%'`)).toBe(0);
    // the keys are not handed out again
    expect(await c.prisma.order.nextId()).toBeGreaterThan(returned[2]!.id);
  });

  it('commits with the transaction', async () => {
    const rows = await c.prisma.$transaction(async (tx) => {
      const created = await tx.order.createManyAndReturn({
        data: [
          { reference: 'tx-commit-2', customerId },
          { reference: 'tx-commit-1', customerId },
        ],
        select: { reference: true },
      });
      return created;
    });
    expect(rows).toEqual([{ reference: 'tx-commit-2' }, { reference: 'tx-commit-1' }]);
    expect(await countRows('mysql', db.url, `orders where reference like 'tx-commit-%'`)).toBe(2);
  });

  it('refuses skipDuplicates, saying why, and inserts nothing', async () => {
    const attempt = c.prisma.order.createManyAndReturn({
      data: [{ reference: 'skip-1', customerId }],
      // @ts-expect-error skipDuplicates is typed out: INSERT IGNORE does not say which rows it skipped
      skipDuplicates: true,
    });
    await expect(attempt).rejects.toThrow(HiLoConfigurationError);
    await expect(attempt).rejects.toThrow(/does not take `skipDuplicates`: INSERT IGNORE does not say/);
    expect(await countRows('mysql', db.url, `orders where reference = 'skip-1'`)).toBe(0);
  });

  it('comes with metadata written by hand when it names the provider, and not without', async () => {
    const models = { Order: { key: { field: 'id', type: 'BigInt', segment: 'orders' } } } as const;
    const byHand = c.base.$extends(hilo({ metadata: { provider: 'mysql', models }, url: db.url }));
    const withoutProvider = c.base.$extends(hilo({ metadata: { models }, url: db.url }));
    try {
      const rows = await byHand.order.createManyAndReturn({
        data: [2, 1].map((n) => ({ reference: `by-hand-${n}`, customerId })),
        select: { reference: true },
      });
      expect(rows).toEqual([{ reference: 'by-hand-2' }, { reference: 'by-hand-1' }]);
      // @ts-expect-error without the provider the client is Prisma's: no createManyAndReturn for mysql
      const plain = withoutProvider.order.createManyAndReturn as (args: unknown) => Promise<unknown>;
      await expect(
        plain.call(withoutProvider.order, { data: [{ reference: 'no-provider', customerId }] }),
      ).rejects.toThrow(/createManyAndReturn/);
    } finally {
      await byHand.$hilo.close();
      await withoutProvider.$hilo.close();
    }
  });

  it('refuses a model without a hi/lo key', async () => {
    // @ts-expect-error Tag's key comes from the database: no keys to find the rows by
    await expect(c.prisma.tag.createManyAndReturn({ data: [{ label: 'a' }] })).rejects.toThrow(
      /Model Tag has no hi\/lo key \(Prisma has no createManyAndReturn on MySQL\)/,
    );
    expect(await countRows('mysql', db.url, 'tags')).toBe(0);
  });
});
