import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import type { AdapterHarness, AdapterShop, ConformanceHiLoOptions, StoredRows } from '@hilo/testing';
import type { HiLoTypeOrmOptions } from 'hilo-typeorm';
import { openDataSource } from './data-source.js';
import { Customer, Order, OrderItem } from './entities.js';
import { dataStatements } from './statement-log.js';

export type ConformanceKind = 'postgres' | 'mysql' | 'sqlite';

/** Small fixed blocks, shared with test/child/conformance-worker.ts, so that processes' reservations interleave. */
export const conformanceHiLoOptions: HiLoTypeOrmOptions = { blockSize: 5, adaptive: false };

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The TypeORM release a Jest project of packages/typeorm-compat maps `typeorm` to (jest.config.ts);
 * the worker processes then map it the same way, so that every process of a run uses one TypeORM.
 */
const compatVersion = (globalThis as { HILO_TYPEORM_VERSION?: string }).HILO_TYPEORM_VERSION;

interface Graph {
  readonly customer: Customer;
  readonly orders: Order[];
}

const key = (value: unknown): bigint => BigInt(value as number | string | bigint);

async function openShop(
  kind: ConformanceKind,
  url: string,
  options: ConformanceHiLoOptions = {},
): Promise<AdapterShop<Graph>> {
  const hiloOptions = { ...conformanceHiLoOptions, ...options };
  const { dataSource, hilo, log } = await openDataSource({ kind, url, name: url }, hiloOptions, {
    synchronize: false,
  });
  const manager = dataSource.manager;
  const q = (name: string) => (kind === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const select = async (ds: DataSource, sql: string): Promise<Array<Record<string, unknown>>> => ds.query(sql);
  let built = 0;
  return {
    async build(orders, items) {
      // create() is synchronous: the keys it hands out must already be in memory
      await Promise.all([hilo.ensure(Customer, 1), hilo.ensure(Order, orders), hilo.ensure(OrderItem, orders * items)]);
      const name = `conformance ${built++}`;
      const customer = manager.create(Customer, { name });
      const list = Array.from({ length: orders }, (_, o) => {
        const order = manager.create(Order, {
          total: o,
          tags: [],
          items: Array.from({ length: items }, (_, i) => ({ sku: `${o}-${i}`, quantity: i + 1 })),
        });
        order.customer = customer;
        order.customerId = customer.id;
        return order;
      });
      return { customer, orders: list };
    },
    keysOf: (graph) => ({
      customer: key(graph.customer.id),
      orders: graph.orders.map((o) => ({ id: key(o.id), items: o.items.map((i) => key(i.id)) })),
    }),
    async persist(graph, inside) {
      await dataSource.transaction(async (tx) => {
        await tx.save(graph.orders);
        inside?.();
      });
    },
    async rows(): Promise<StoredRows> {
      const [customers, orders, items] = await Promise.all([
        select(dataSource, `select id from customers`),
        select(dataSource, `select id, ${q('customerId')} as customer from orders`),
        select(dataSource, `select id, ${q('orderId')} as ${q('order')} from order_items`),
      ]);
      return {
        customers: customers.map((r) => key(r['id'])),
        orders: orders.map((r) => ({ id: key(r['id']), customer: key(r['customer']) })),
        items: items.map((r) => ({ id: key(r['id']), order: key(r['order']) })),
      };
    },
    async load() {
      const customers = await dataSource.getRepository(Customer).find({ relations: { orders: { items: true } } });
      return customers.reduce((n, c) => n + 1 + (c.orders ?? []).reduce((m, o) => m + 1 + o.items.length, 0), 0);
    },
    async keysIssued() {
      return Object.values(hilo.generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    },
    statementsSent: () => dataStatements(log.statements).filter((s) => !/hilo/i.test(s)).length,
    async close() {
      await dataSource.destroy();
    },
  };
}

/** The adapter conformance harness for hilo-typeorm on `kind`. */
export function typeormHarness(kind: ConformanceKind): AdapterHarness<Graph> {
  return {
    name: `typeorm on ${kind}`,
    kind,
    async prepare(url) {
      const { dataSource } = await openDataSource({ kind, url, name: url }, conformanceHiLoOptions);
      await dataSource.destroy();
    },
    open: (url, options) => openShop(kind, url, options),
    worker: {
      script: join(here, '..', 'child', 'conformance-worker.ts'),
      tsconfig:
        compatVersion === undefined
          ? join(here, '..', 'child', 'tsconfig.json')
          : join(here, '..', '..', '..', 'typeorm-compat', 'child', `tsconfig.typeorm-${compatVersion}.json`),
      spec: compatVersion === undefined ? { kind } : { kind, typeorm: compatVersion },
    },
  };
}
