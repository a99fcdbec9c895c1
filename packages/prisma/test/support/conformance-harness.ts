import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdapterHarness, AdapterShop, ConformanceHiLoOptions, StoredRows } from '@hilo/testing';
import { hilo } from '../../src/index.js';
import { createBaseClient, createSchema, metadataFor, type BaseClient, type Kind } from '../fixtures.js';
import { compatVersion } from './compat.js';

/** Small fixed blocks, shared with test/child/conformance-worker.ts, so that processes' reservations interleave. */
export const conformanceOptions = { blockSize: 5, adaptive: false } as const;

const here = dirname(fileURLToPath(import.meta.url));

/** A Prisma client with the hilo extension on the test database, as the harness and its worker use it. */
export function conformanceClient(kind: Kind, url: string, options: ConformanceHiLoOptions = {}) {
  const { prisma: base, queries } = createBaseClient(kind, url);
  const prisma = base.$extends(hilo({ metadata: metadataFor(kind), url, ...conformanceOptions, ...options }));
  return { base, prisma, queries };
}

/** Prisma has no entities in memory: the graph is the data of a nested create, keyed from `reserveIds()`. */
interface Graph {
  readonly data: {
    id: bigint;
    name: string;
    orders: {
      create: Array<{
        id: bigint;
        reference: string;
        items: { create: Array<{ id: bigint; sku: string; quantity: number }> };
      }>;
    };
  };
}

const key = (value: unknown): bigint => BigInt(value as number | string | bigint);

async function select(base: BaseClient, sql: string): Promise<Array<Record<string, unknown>>> {
  return base.$queryRawUnsafe<Array<Record<string, unknown>>>(sql);
}

async function openShop(kind: Kind, url: string, options: ConformanceHiLoOptions = {}): Promise<AdapterShop<Graph>> {
  const { base, prisma, queries } = conformanceClient(kind, url, options);
  const prefix = randomBytes(4).toString('hex');
  let built = 0;
  return {
    async build(orders, items) {
      const [[customer], orderIds, itemIds] = await Promise.all([
        prisma.customer.reserveIds(1),
        prisma.order.reserveIds(orders),
        prisma.orderItem.reserveIds(orders * items),
      ]);
      const name = `conformance ${prefix}-${built++}`;
      return {
        data: {
          id: customer!,
          name,
          orders: {
            create: orderIds.map((id, o) => ({
              id,
              reference: `${name}-${o}`,
              items: {
                create: itemIds
                  .slice(o * items, (o + 1) * items)
                  .map((itemId, i) => ({ id: itemId, sku: `${o}-${i}`, quantity: i + 1 })),
              },
            })),
          },
        },
      };
    },
    keysOf: ({ data }) => ({
      customer: data.id,
      orders: data.orders.create.map((o) => ({ id: o.id, items: o.items.create.map((i) => i.id) })),
    }),
    async persist({ data }, inside) {
      await prisma.$transaction(async (tx) => {
        await tx.customer.create({ data });
        inside?.();
      });
    },
    async rows(): Promise<StoredRows> {
      const [customers, orders, items] = await Promise.all([
        select(base, 'select id from customers'),
        select(base, 'select id, customer_id as customer from orders'),
        select(base, 'select item_id as id, order_id as order_key from order_items'),
      ]);
      return {
        customers: customers.map((r) => key(r['id'])),
        orders: orders.map((r) => ({ id: key(r['id']), customer: key(r['customer']) })),
        items: items.map((r) => ({ id: key(r['id']), order: key(r['order_key']) })),
      };
    },
    async load() {
      const customers = await prisma.customer.findMany({ include: { orders: { include: { items: true } } } });
      return customers.reduce((n, c) => n + 1 + c.orders.reduce((m, o) => m + 1 + o.items.length, 0), 0);
    },
    async keysIssued() {
      const generator = await prisma.$hilo.generator();
      return Object.values(generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    },
    statementsSent: () =>
      queries.filter((q) => !/hilo/i.test(q) && !/^\s*(begin|commit|rollback|start transaction)/i.test(q)).length,
    async close() {
      await prisma.$hilo.close();
      await base.$disconnect();
    },
  };
}

/** The adapter conformance harness for hilo-prisma on `kind` (tables from SQL, as in suite.ts). */
export function prismaHarness(kind: Kind): AdapterHarness<Graph> {
  return {
    name: `prisma on ${kind}`,
    kind,
    prepare: (url) => createSchema(kind, url),
    open: (url, options) => openShop(kind, url, options),
    // under the packages/prisma-compat Jest project the worker loads the same Prisma through the module hooks
    // that project's globals name (@hilo/testing's workerMapping), and checks the release
    worker: {
      script: join(here, '..', 'child', 'conformance-worker.ts'),
      spec: compatVersion === undefined ? { kind } : { kind, prisma: compatVersion },
    },
  };
}
