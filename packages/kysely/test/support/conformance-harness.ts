import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdapterHarness, AdapterShop, ConformanceHiLoOptions, StoredRows } from '@hilo/testing';
import { createShopTables, openShop, testHiLoOptions, type Kind } from './shop.js';

const here = dirname(fileURLToPath(import.meta.url));

interface Graph {
  readonly customer: { id: number; name: string };
  readonly orders: Array<{
    id: number;
    customer_id: number;
    total: number;
    items: Array<{ id: number; order_id: number; sku: string }>;
  }>;
}

async function open(kind: Kind, url: string, options: ConformanceHiLoOptions = {}): Promise<AdapterShop<Graph>> {
  const shop = await openShop(kind, url, { ...testHiLoOptions, ...options });
  const { db, hilo } = shop;
  const id = async (table: string) => (await hilo.nextId(table)) as number;
  let built = 0;
  return {
    async build(orders, items) {
      await Promise.all([
        hilo.ensure('customers', 1),
        hilo.ensure('orders', orders),
        hilo.ensure('order_items', orders * items),
      ]);
      const customer = { id: await id('customers'), name: `conformance ${built++}` };
      const list = [];
      for (let o = 0; o < orders; o++) {
        const orderId = await id('orders');
        const lines = [];
        for (let i = 0; i < items; i++)
          lines.push({ id: await id('order_items'), order_id: orderId, sku: `${o}-${i}` });
        list.push({ id: orderId, customer_id: customer.id, total: o, items: lines });
      }
      return { customer, orders: list };
    },
    keysOf: (graph) => ({
      customer: BigInt(graph.customer.id),
      orders: graph.orders.map((o) => ({ id: BigInt(o.id), items: o.items.map((i) => BigInt(i.id)) })),
    }),
    async persist(graph, inside) {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('customers').values(graph.customer).execute();
        if (graph.orders.length)
          await trx
            .insertInto('orders')
            .values(graph.orders.map(({ items: _, ...o }) => o))
            .execute();
        const items = graph.orders.flatMap((o) => o.items);
        if (items.length) await trx.insertInto('order_items').values(items).execute();
        inside?.();
      });
    },
    async rows(): Promise<StoredRows> {
      const [customers, orders, items] = await Promise.all([
        db.selectFrom('customers').select('id').execute(),
        db.selectFrom('orders').select(['id', 'customer_id']).execute(),
        db.selectFrom('order_items').select(['id', 'order_id']).execute(),
      ]);
      return {
        customers: customers.map((r) => BigInt(r.id)),
        orders: orders.map((r) => ({ id: BigInt(r.id), customer: BigInt(r.customer_id) })),
        items: items.map((r) => ({ id: BigInt(r.id), order: BigInt(r.order_id) })),
      };
    },
    async load() {
      const rows = await db
        .selectFrom('customers')
        .leftJoin('orders', 'orders.customer_id', 'customers.id')
        .leftJoin('order_items', 'order_items.order_id', 'orders.id')
        .select(['customers.id as c', 'orders.id as o', 'order_items.id as i'])
        .execute();
      const distinct = (values: unknown[]) => new Set(values.filter((v) => v !== null).map(String)).size;
      return distinct(rows.map((r) => r.c)) + distinct(rows.map((r) => r.o)) + distinct(rows.map((r) => r.i));
    },
    async keysIssued() {
      return Object.values((await hilo.generator()).stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    },
    statementsSent: () => shop.statements,
    close: () => shop.close(),
  };
}

/** The Kysely release a packages/kysely-compat Jest project maps `kysely` to (jest.config.ts names it), else `undefined`. */
const compatVersion = (globalThis as { HILO_KYSELY_VERSION?: string }).HILO_KYSELY_VERSION;

/** The adapter conformance harness for hilo-kysely on `kind`. */
export function kyselyHarness(kind: Kind): AdapterHarness<Graph> {
  return {
    name: `kysely on ${kind}`,
    kind,
    prepare: (url) => createShopTables(kind, url),
    open: (url, options) => open(kind, url, options),
    worker: {
      script: join(here, '..', 'child', 'conformance-worker.ts'),
      // under the packages/kysely-compat Jest project the worker maps `kysely` to the same release
      tsconfig:
        compatVersion === undefined
          ? join(here, '..', 'child', 'tsconfig.json')
          : join(here, '..', '..', '..', 'kysely-compat', 'child', 'tsconfig.json'),
      spec: compatVersion === undefined ? { kind } : { kind, kysely: compatVersion },
    },
  };
}
