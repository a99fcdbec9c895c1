/**
 * The behaviour hilo-prisma promises, run against each database by `prisma.<db>.test.ts`.
 */
import { createHiLoGenerator, memorySource } from 'hilo-core';
import type { TestDatabase } from '@hilo/testing';
import { hilo } from '../src/index.js';
import { runChild } from './child-process.js';
import { countRows, createBaseClient, createSchema, metadataFor, type BaseClient, type Kind } from './fixtures.js';

export type SourceKind = 'sequence' | 'table';

function extend(base: BaseClient, kind: Kind, url: string, source: SourceKind) {
  return base.$extends(hilo({ metadata: metadataFor(kind), url, source }));
}

const inserts = (queries: readonly string[]) => queries.filter((q) => /^\s*insert/i.test(q));

export function prismaSuite(kind: Kind, db: TestDatabase, source: SourceKind): void {
  let base: BaseClient;
  let queries: string[];
  let prisma: ReturnType<typeof extend>;

  beforeAll(async () => {
    await createSchema(kind, db.url);
    ({ prisma: base, queries } = createBaseClient(kind, db.url));
    prisma = extend(base, kind, db.url, source);
  });
  afterAll(async () => {
    await prisma?.$hilo.close();
    await base?.$disconnect();
  });

  it('should fill keys at every nesting level of a create', async () => {
    const customer = await prisma.customer.create({
      data: {
        name: 'Ada',
        profile: { create: { bio: 'mathematician' } },
        orders: {
          create: [
            {
              reference: `${kind}-nested-1`,
              items: {
                create: [
                  { sku: 'A', quantity: 1, notes: { create: [{ text: 'gift wrap' }, { text: 'fragile' }] } },
                  { sku: 'B', quantity: 2 },
                ],
              },
            },
            {
              reference: `${kind}-nested-2`,
              items: {
                createMany: {
                  data: [
                    { sku: 'C', quantity: 3 },
                    { sku: 'D', quantity: 4 },
                  ],
                },
              },
            },
          ],
        },
      },
      include: { profile: true, orders: { include: { items: { include: { notes: true } } } } },
    });
    expect(typeof customer.id).toBe('bigint');
    expect(typeof customer.profile!.id).toBe('number');
    expect(customer.orders).toHaveLength(2);
    const items = customer.orders.flatMap((o) => o.items);
    expect(items.map((i) => i.sku).sort()).toEqual(['A', 'B', 'C', 'D']);
    for (const item of items) expect(typeof item.id).toBe('bigint');
    const notes = items.flatMap((i) => i.notes);
    expect(notes).toHaveLength(2);
    for (const note of notes) expect(typeof note.id).toBe('number');
    expect(await countRows(kind, db.url, 'item_notes')).toBeGreaterThanOrEqual(2);
  });

  it('should fill keys of nested writes inside an update and an upsert', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Grace' } });
    const first = await prisma.order.create({ data: { reference: `${kind}-upd-1`, customerId: customer.id } });
    const updated = await prisma.customer.update({
      where: { id: customer.id },
      data: {
        name: 'Grace H.',
        profile: { upsert: { create: { bio: 'admiral' }, update: { bio: 'admiral' } } },
        orders: {
          create: { reference: `${kind}-upd-2` },
          connectOrCreate: { where: { reference: `${kind}-upd-3` }, create: { reference: `${kind}-upd-3` } },
          upsert: {
            where: { reference: `${kind}-upd-4` },
            create: { reference: `${kind}-upd-4`, items: { create: { sku: 'U', quantity: 1 } } },
            update: {},
          },
          update: {
            where: { id: first.id },
            data: { items: { create: { sku: 'N', quantity: 5, notes: { create: { text: 'deep' } } } } },
          },
        },
      },
      include: { profile: true, orders: { include: { items: { include: { notes: true } } } } },
    });
    expect(typeof updated.profile!.id).toBe('number');
    expect(updated.orders.map((o) => o.reference).sort()).toEqual([1, 2, 3, 4].map((n) => `${kind}-upd-${n}`));
    const items = updated.orders.flatMap((o) => o.items);
    expect(items.map((i) => i.sku).sort()).toEqual(['N', 'U']);
    expect(items.flatMap((i) => i.notes).map((n) => n.text)).toEqual(['deep']);

    const upserted = await prisma.order.upsert({
      where: { reference: `${kind}-upsert-top` },
      create: {
        reference: `${kind}-upsert-top`,
        customer: { connect: { id: customer.id } },
        items: { create: [{ sku: 'X', quantity: 1 }] },
      },
      update: {},
      include: { items: true },
    });
    expect(typeof upserted.id).toBe('bigint');
    expect(upserted.items).toHaveLength(1);
  });

  it('should fill keys in createMany and keep keys the caller set', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Edsger' } });
    const [own] = await prisma.order.reserveIds(1);
    await prisma.order.createMany({
      data: [
        { id: own!, reference: `${kind}-many-own`, customerId: customer.id },
        { reference: `${kind}-many-2`, customerId: customer.id },
        { reference: `${kind}-many-3`, customerId: customer.id },
      ],
    });
    const rows = await prisma.order.findMany({ where: { customerId: customer.id }, orderBy: { reference: 'asc' } });
    expect(rows.map((r) => r.reference)).toEqual([`${kind}-many-2`, `${kind}-many-3`, `${kind}-many-own`]);
    expect(rows.find((r) => r.reference.endsWith('own'))!.id).toBe(own);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
  });

  if (kind === 'postgres') {
    it('should fill keys in createManyAndReturn', async () => {
      const customer = await prisma.customer.create({ data: { name: 'Barbara' } });
      const rows = await prisma.order.createManyAndReturn({
        data: [
          { reference: 'cmr-1', customerId: customer.id },
          { reference: 'cmr-2', customerId: customer.id },
        ],
      });
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(typeof row.id).toBe('bigint');
    });
  }

  it('should not change the objects the caller passed', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Niklaus' } });
    const data = {
      reference: `${kind}-untouched`,
      customerId: customer.id,
      items: { create: [{ sku: 'Q', quantity: 1 }] },
    };
    await prisma.order.create({ data });
    expect(data).toEqual({
      reference: `${kind}-untouched`,
      customerId: customer.id,
      items: { create: [{ sku: 'Q', quantity: 1 }] },
    });
  });

  it('should leave models without @hilo to the database', async () => {
    const tag = await prisma.tag.create({ data: { label: `${kind}-tag` } });
    expect(typeof tag.id).toBe('number');
    expect(tag.id).toBeGreaterThan(0);
  });

  it('should type nextId() and reserveIds() from the schema', async () => {
    const orderId: bigint = await prisma.order.nextId();
    const profileId: number = await prisma.profile.nextId();
    // @ts-expect-error Profile's key is an Int, so nextId() gives a number
    const wrong: bigint = await prisma.profile.nextId();
    expect(typeof orderId).toBe('bigint');
    expect(typeof profileId).toBe('number');
    expect(typeof wrong).toBe('number');
    const ids: bigint[] = await prisma.orderItem.reserveIds(300);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    await expect(prisma.tag.nextId()).rejects.toThrow(/Model Tag has no hi\/lo key.*@hilo/);
  });

  it('should persist a graph of orders and items with two INSERT statements', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Donald' } });
    const orderIds = await prisma.order.reserveIds(20);
    const itemIds = await prisma.orderItem.reserveIds(200);
    const orders = orderIds.map((id, i) => ({ id, reference: `${kind}-graph-${i}`, customerId: customer.id }));
    const items = itemIds.map((id, i) => ({ id, orderId: orderIds[i % 20]!, sku: `S${i}`, quantity: 1 }));
    queries.length = 0;
    await prisma.$transaction([
      prisma.order.createMany({ data: orders }),
      prisma.orderItem.createMany({ data: items }),
    ]);
    expect(inserts(queries)).toHaveLength(2);
    expect(await prisma.orderItem.count({ where: { orderId: { in: orderIds } } })).toBe(200);
  });

  it('should fill keys inside a batch $transaction and an interactive transaction', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Alan' } });
    const [a, b] = await prisma.$transaction([
      prisma.order.create({ data: { reference: `${kind}-batch-1`, customerId: customer.id } }),
      prisma.order.create({
        data: { reference: `${kind}-batch-2`, customerId: customer.id, items: { create: { sku: 'T', quantity: 1 } } },
      }),
    ]);
    expect(typeof a.id).toBe('bigint');
    expect(b.id).not.toBe(a.id);
    const inTx = await prisma.$transaction(async (tx) => {
      const id = await tx.order.nextId();
      const order = await tx.order.create({
        data: { reference: `${kind}-itx`, customerId: customer.id, items: { create: { sku: 'I', quantity: 1 } } },
      });
      return { id, order };
    });
    expect(typeof inTx.id).toBe('bigint');
    expect(inTx.order.id).not.toBe(inTx.id);
  });

  it('should read relations from the client when the metadata is written by hand', async () => {
    const metadata = {
      models: {
        Order: { key: { field: 'id', type: 'BigInt', segment: 'orders' } },
        OrderItem: { key: { field: 'id', type: 'BigInt', segment: 'order_items' } },
        ItemNote: { key: { field: 'id', type: 'Int', segment: 'item_notes' } },
      },
    } as const;
    const byHand = base.$extends(hilo({ metadata, url: db.url, source }));
    try {
      const customer = await byHand.customer.create({ data: { id: await prisma.customer.nextId(), name: 'Hand' } });
      const order = await byHand.order.create({
        data: {
          reference: `${kind}-by-hand`,
          customerId: customer.id,
          items: { create: { sku: 'H', quantity: 1, notes: { create: { text: 'n' } } } },
        },
        include: { items: { include: { notes: true } } },
      });
      expect(typeof order.id).toBe('bigint');
      expect(typeof order.items[0]!.notes[0]!.id).toBe('number');
      const id: bigint = await byHand.order.nextId();
      expect(id).toBeGreaterThan(order.id);
    } finally {
      await byHand.$hilo.close();
    }
  });

  it('should say which option is missing or wrong', () => {
    const metadata = metadataFor(kind);
    expect(() => hilo({ metadata })).toThrow(/exactly one of `url`, `client` or `generator`, got 0/);
    expect(() => hilo({ metadata, url: db.url, generator: createHiLoGenerator({ source: memorySource() }) })).toThrow(
      /got 2/,
    );
    expect(() => hilo({ metadata, url: db.url, source: 'sequences' as 'sequence' })).toThrow(
      /`source` to be "sequence" or "table", got "sequences"/,
    );
    expect(() =>
      hilo({
        metadata: { models: { Order: { key: { field: 'id', type: 'String' as 'Int', segment: 'orders' } } } },
        url: db.url,
      }),
    ).toThrow(/`models\.Order\.key\.type` to be "Int" or "BigInt", got "String"/);
    expect(() => hilo({ metadata: undefined as never, url: db.url })).toThrow(/generated/);
    expect(() => hilo({ metadata, url: db.url, blocksize: 10 } as never)).toThrow(
      /Unknown option `blocksize` for hilo\(\); expected one of .*`blockSize`.*`metadata`/,
    );
    expect(() => hilo({ metadata, url: db.url, segments: {} } as never)).toThrow(/Unknown option `segments`/);
  });

  it('should refuse an Int key beyond 2^31 − 1 instead of wrapping', async () => {
    const generator = createHiLoGenerator({ source: memorySource({ start: 2 ** 31 }), keyType: 'bigint' });
    const high = base.$extends(hilo({ metadata: metadataFor(kind), generator }));
    await expect(high.profile.nextId()).rejects.toThrow(/does not fit Profile\.id, an Int .*make the field BigInt/);
    expect(await high.order.nextId()).toBe(2n ** 31n);
    await high.$hilo.close();
  });

  it('should reject, in the database, a row sent by a client without the extension, naming the line', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Kurt' } });
    const error = await base.order
      .create({ data: { reference: `${kind}-no-key`, customerId: customer.id } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/hilo: a row of segment '?orders'? arrived without a key/);
    // PostgreSQL's message names every adapter's line; MariaDB's (at most 128 characters) names Prisma's
    expect((error as Error).message).toMatch(
      kind === 'postgres'
        ? /hilo is not installed on the client that inserted it\..*Prisma prisma\.\$extends\(hilo\(\{ metadata \}\)\)/
        : /hilo: a row of segment 'orders' arrived without a key: use prisma\.\$extends\(hilo\(\.\.\.\)\)/,
    );
  });

  it('should never hand out again a key drawn in a rolled-back transaction', async () => {
    const customer = await prisma.customer.create({ data: { name: 'Tony' } });
    const reference = `${kind}-${source}-rolled-back`;
    let order: { id: bigint; items: { id: bigint }[] } | undefined;
    await expect(
      prisma.$transaction(async (tx) => {
        order = await tx.order.create({
          data: { reference, customerId: customer.id, items: { create: [{ sku: 'R', quantity: 1 }] } },
          include: { items: true },
        });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await prisma.order.count({ where: { reference } })).toBe(0);
    const rolledBackOrder = order!.id;
    const rolledBackItem = order!.items[0]!.id;
    expect(await prisma.order.nextId()).toBeGreaterThan(rolledBackOrder);
    // a fresh instance, like another process, starts from the database: the reservation was committed
    const other = extend(base, kind, db.url, source);
    try {
      expect(await other.order.nextId()).toBeGreaterThan(rolledBackOrder);
      expect(await other.orderItem.nextId()).toBeGreaterThan(rolledBackItem);
    } finally {
      await other.$hilo.close();
    }
  });

  // Uniqueness across processes is the hi source's promise (core's conformance suite runs every source);
  // here it is checked once per database, with the default source, through the whole Prisma path.
  const defaultSource: SourceKind = kind === 'postgres' ? 'sequence' : 'table';
  if (source === defaultSource) {
    it('should draw no key twice across processes', async () => {
      const rounds = 6;
      const results = await Promise.all(
        [1, 2, 3].map((n) =>
          runChild<string[]>('draw-keys', [kind, db.url, `${kind}-${source}-p${n}`, String(rounds), source]),
        ),
      );
      const all = results.flat();
      expect(all).toHaveLength(3 * (1 + rounds + 5 * rounds));
      expect(new Set(all).size).toBe(all.length);
    }, 60_000);
  }
}
