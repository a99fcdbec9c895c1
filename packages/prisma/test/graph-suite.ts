/**
 * createGraph() on a real database through a real Prisma client: nested-create input translated to hilo-core's graph
 * load, keys written back and equal to the rows', foreign keys right, a failure rolling it all back, and every
 * refusal before anything is written. Shared by the PostgreSQL and MariaDB files.
 */
import pg from 'pg';
import mysql from 'mysql2/promise';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import type { TestDatabase } from '@hilo/testing';
import { hilo, HiLoConfigurationError, HiLoGraphLoadError } from '../src/index.js';
import { createSchema, metadataFor, type BaseClient, type Kind } from './fixtures.js';
import { PrismaClient as PgPrismaClient } from './generated/postgres/client.js';
import { PrismaClient as MyPrismaClient } from './generated/mysql/client.js';

const TABLES = ['customers', 'profiles', 'orders', 'order_items', 'item_notes'] as const;

export function graphSuite(kind: Kind, db: TestDatabase): void {
  let pool: pg.Pool | mysql.Pool;
  let base: BaseClient;
  let prisma: ReturnType<typeof extend>;
  const metadata = metadataFor(kind);
  const extend = (client: BaseClient, options: { graph?: { pool: unknown }; metadata?: typeof metadata } = {}) =>
    client.$extends(hilo({ metadata: options.metadata ?? metadata, url: db.url, graph: options.graph }));

  /** Every row of the graph's tables, straight from the database. */
  async function dump(): Promise<Record<string, Record<string, unknown>[]>> {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const table of TABLES) {
      const sql = `select * from ${table} order by 1`;
      out[table] =
        kind === 'postgres'
          ? (await (pool as pg.Pool).query(sql)).rows
          : ((await (pool as mysql.Pool).query(sql))[0] as Record<string, unknown>[]);
    }
    return out;
  }
  const counts = async () => Object.fromEntries(Object.entries(await dump()).map(([t, rows]) => [t, rows.length]));

  beforeAll(async () => {
    await createSchema(kind, db.url);
    if (kind === 'postgres') {
      pool = new pg.Pool({ connectionString: db.url, max: 4 });
      // the pool the app gives Prisma's adapter is the one createGraph() writes through
      base = new PgPrismaClient({ adapter: new PrismaPg(pool) });
    } else {
      pool = mysql.createPool({ uri: db.url, connectionLimit: 4, supportBigNumbers: true, bigNumberStrings: true });
      base = new MyPrismaClient({
        adapter: new PrismaMariaDb(db.url.replace(/^mysql:/, 'mariadb:')),
      }) as unknown as BaseClient;
    }
    prisma = extend(base, { graph: { pool } });
  });
  afterAll(async () => {
    await prisma?.$hilo.close();
    await base?.$disconnect();
    await pool?.end();
  });

  it('writes customers with profile, orders, items and notes; keys handed back are the rows’ and every FK is its parent’s', async () => {
    const notes = [{ text: 'gift wrap' }, { text: 'fragile' }];
    const items = [
      { sku: 'A-1', quantity: 2, notes: { create: notes } },
      { sku: 'B-7', quantity: 1 },
    ];
    const order1 = { reference: 'G-1', items: { create: items } };
    const order2 = { reference: 'G-2', items: { createMany: { data: [{ sku: 'C-3', quantity: 5 }] } } };
    const ada = { name: 'Ada', profile: { create: { bio: 'math' } }, orders: { create: [order1, order2] } };
    const bob = { name: 'Bob', orders: { create: { reference: 'G-3' } } };

    const result = await prisma.customer.createGraph({ data: [ada, bob] });

    expect(result).toEqual({
      items: 2,
      rows: { Customer: 2, Profile: 1, Order: 3, OrderItem: 3, ItemNote: 2 },
    });
    const handed = ada as typeof ada & { id: bigint };
    expect(typeof handed.id).toBe('bigint');
    const rows = await prisma.customer.findMany({
      where: { id: { in: [handed.id, (bob as typeof bob & { id: bigint }).id] } },
      include: { profile: true, orders: { include: { items: { include: { notes: true } } } } },
      orderBy: { id: 'asc' },
    });
    const written = (o: object) => o as Record<string, unknown>;
    // the keys in the database are the ones written back into the input, and each child carries its parent's key
    expect(rows.map((r) => r.id)).toEqual([handed.id, written(bob).id]);
    expect(rows[0]!.profile).toEqual({ id: written(ada.profile.create).id, bio: 'math', customerId: handed.id });
    expect(typeof written(ada.profile.create).id).toBe('number'); // Profile's key is an Int
    expect(rows[0]!.orders.map((o) => [o.id, o.reference, o.customerId])).toEqual(
      [order1, order2].map((o) => [written(o).id, o.reference, handed.id]),
    );
    expect(written(order1).customerId).toBe(handed.id);
    const dbItems = rows[0]!.orders.flatMap((o) => o.items);
    const inputItems = [...items, ...order2.items.createMany.data];
    expect(dbItems.map((i) => [i.id, i.orderId, i.sku, i.quantity])).toEqual(
      inputItems.map((i) => [written(i).id, written(i).orderId, i.sku, i.quantity]),
    );
    expect(inputItems.map((i) => written(i).orderId)).toEqual([
      written(order1).id,
      written(order1).id,
      written(order2).id,
    ]);
    expect(dbItems[0]!.notes.map((n) => [n.id, n.itemId, n.text])).toEqual(
      notes.map((n) => [written(n).id, written(items[0]!).id, n.text]),
    );
    expect(rows[1]!.orders.map((o) => o.id)).toEqual([written(bob.orders.create).id]);
    // hilo's keys, from the segments the metadata names (the key columns of the rows as the database has them)
    const raw = await dump();
    expect(raw.order_items!.map((r) => String(r.item_id))).toEqual(inputItems.map((i) => String(written(i).id)));
    expect(raw.order_items!.map((r) => String(r.order_id))).toEqual(inputItems.map((i) => String(written(i).orderId)));
  });

  it('takes one root, an async iterable of roots, and a root of a child model with its foreign key set', async () => {
    const customer = { name: 'Cy' };
    await prisma.customer.createGraph({ data: customer });
    const customerId = (customer as typeof customer & { id: bigint }).id;
    async function* orders() {
      for (let n = 0; n < 3; n++)
        yield { reference: `S-${n}`, customerId, items: { create: [{ sku: `s${n}`, quantity: n + 1 }] } };
    }
    const result = await prisma.order.createGraph({ data: orders(), batchRows: 2 });
    expect(result).toEqual({ items: 3, rows: { Order: 3, OrderItem: 3, ItemNote: 0 } });
    const rows = await prisma.order.findMany({
      where: { customerId },
      include: { items: true },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((o) => [o.reference, o.items.length, o.items[0]!.orderId === o.id])).toEqual([
      ['S-0', 1, true],
      ['S-1', 1, true],
      ['S-2', 1, true],
    ]);
  });

  it('rolls everything back when a row fails half-way, and throws HiLoGraphLoadError naming the table', async () => {
    const before = await counts();
    const roots = [0, 1, 2].map((n) => ({
      name: `Roll ${n}`,
      orders: {
        create: [
          {
            reference: `R-${n}`,
            // the second root's second item has no sku: NOT NULL refuses it
            items: {
              create: [
                { sku: 'ok', quantity: 1 },
                { sku: n === 1 ? (null as unknown as string) : 'ok', quantity: 1 },
              ],
            },
          },
        ],
      },
    }));
    const error = await prisma.customer.createGraph({ data: roots, batchRows: 3 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect((error as HiLoGraphLoadError).table).toBe('order_items');
    expect((error as Error).message).toContain('order_items');
    expect(await counts()).toEqual(before);
  });

  describe('refuses, before writing anything, what it cannot translate', () => {
    let customerId: bigint;
    beforeAll(async () => {
      customerId = (await prisma.customer.create({ data: { name: 'Existing' } })).id;
    });
    const refusals: [string, () => Promise<unknown>, RegExp][] = [
      [
        'connect under a relation',
        () => prisma.customer.createGraph({ data: { name: 'x', orders: { connect: [{ id: 1n }] } } }),
        /`Customer\.orders\.connect` is not a create.*use `create` or `createMany`/,
      ],
      [
        'connectOrCreate under a relation',
        () =>
          prisma.customer.createGraph({
            data: {
              name: 'x',
              orders: { connectOrCreate: [{ where: { id: 1n }, create: { reference: 'c' } }] },
            },
          }),
        /`Customer\.orders\.connectOrCreate` is not a create/,
      ],
      [
        'a relation on the foreign-key side',
        () => prisma.order.createGraph({ data: { reference: 'fk', customer: { create: { name: 'parent' } } } }),
        /`Order\.customer` is the side of the relation that holds the foreign key \(`customerId`\).*set `customerId`/,
      ],
      [
        'an unknown field',
        () => prisma.customer.createGraph({ data: { name: 'x', nickname: 'y' } as never }),
        /model Customer has no field `nickname`/,
      ],
      [
        'a model without a hi/lo key',
        () => (prisma.tag as unknown as typeof prisma.customer).createGraph({ data: { name: 'x' } }),
        /Model Tag has no hi\/lo key \(createGraph\(\) gives every row a hi\/lo key\)/,
      ],
      [
        'createMany with skipDuplicates',
        () =>
          prisma.customer.createGraph({
            data: { name: 'x', orders: { createMany: { data: [{ reference: 'd' }], skipDuplicates: true } } },
          }),
        /`Customer\.orders\.createMany` sets skipDuplicates/,
      ],
      [
        'a refusal in a later root: nothing of the earlier roots is written',
        () =>
          prisma.order.createGraph({
            data: [
              { reference: 'early', customerId },
              { reference: 'late', customerId, items: { connect: [{ id: 1n }] } },
            ],
          }),
        /`Order\.items\.connect` is not a create/,
      ],
    ];
    it.each(refusals)('%s', async (_, call, message) => {
      const before = await counts();
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      expect((error as Error).message).toMatch(message);
      expect(await counts()).toEqual(before);
    });

    it('a to-many relation without a foreign-key field on the child (as an implicit many-to-many)', async () => {
      // the test schemas have no implicit many-to-many: its metadata is the generator's with the other side's FK gone
      const customer = metadata.models.Customer;
      const withoutFk = {
        ...metadata,
        models: {
          ...metadata.models,
          Customer: {
            ...customer,
            graph: { ...customer.graph, relations: { ...customer.graph.relations, orders: {} } },
          },
        },
      } as unknown as typeof metadata;
      const other = extend(base, { graph: { pool }, metadata: withoutFk });
      try {
        const before = await counts();
        await expect(
          other.customer.createGraph({ data: { name: 'x', orders: { create: [{ reference: 'm2m' }] } } }),
        ).rejects.toThrow(
          /`Customer\.orders` has no single foreign-key field on Order.*create\/createMany after the load/,
        );
        expect(await counts()).toEqual(before);
      } finally {
        await other.$hilo.close();
      }
    });

    it('a refusal in an async iterable: the cause of a HiLoGraphLoadError, and the roots before it rolled back', async () => {
      const before = await counts();
      async function* roots() {
        yield { reference: 'first', customerId };
        yield { reference: 'second', customerId, items: { connect: [{ id: 1n }] } };
      }
      const error = await prisma.order.createGraph({ data: roots(), batchRows: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(HiLoGraphLoadError);
      expect((error as HiLoGraphLoadError).item).toBe(1);
      expect((error as Error).cause).toBeInstanceOf(HiLoConfigurationError);
      expect(((error as Error).cause as Error).message).toMatch(/`Order\.items\.connect` is not a create/);
      expect(await counts()).toEqual(before);
    });

    it('a key set in the input (hilo gives every row its key)', async () => {
      const before = await counts();
      await expect(prisma.customer.createGraph({ data: { id: 5n, name: 'keyed' } })).rejects.toThrow(
        /a row of "customers" already has id = 5n/,
      );
      expect(await counts()).toEqual(before);
    });

    it('inside $transaction', async () => {
      const before = await counts();
      await expect(prisma.$transaction((tx) => tx.customer.createGraph({ data: { name: 'in tx' } }))).rejects.toThrow(
        /Customer\.createGraph\(\) cannot run inside \$transaction/,
      );
      expect(await counts()).toEqual(before);
    });

    it('without graph.pool', async () => {
      const other = extend(base);
      try {
        await expect(other.customer.createGraph({ data: { name: 'no pool' } })).rejects.toThrow(
          /graph\.pool.*a `pg` Pool/,
        );
      } finally {
        await other.$hilo.close();
      }
    });
  });
}
