import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntityManager, InferEntity, MikroORM } from '@mikro-orm/core';
import type { AdapterHarness, AdapterShop, ConformanceHiLoOptions, StoredRows } from '@hilo/testing';
import { HiLo, type HiLoOptions } from '../../src/index.js';
import { Customer, defineEntities } from '../fixtures/define-entities.js';
import { compatVersion, workerTsconfig, createSchema } from './compat.js';
import { openOrm, type Kind } from './orm.js';

/** Small fixed blocks, shared with conformance-worker.ts, so that processes' reservations interleave. */
export const conformanceHiLoOptions: HiLoOptions = { blockSize: 5, adaptive: false };

const here = dirname(fileURLToPath(import.meta.url));

type CustomerEntity = InferEntity<typeof Customer>;

interface Graph {
  readonly em: EntityManager;
  readonly customer: CustomerEntity;
}

const key = (value: unknown): bigint => BigInt(value as number | string | bigint);

async function select(orm: MikroORM, sql: string): Promise<Array<Record<string, unknown>>> {
  return orm.em.fork().getConnection().execute<Array<Record<string, unknown>>>(sql);
}

async function openShop(kind: Kind, url: string, options: ConformanceHiLoOptions = {}): Promise<AdapterShop<Graph>> {
  const { orm, log } = await openOrm(kind, url, defineEntities, { ...conformanceHiLoOptions, ...options });
  const generator = HiLo.generator(orm);
  let built = 0;
  return {
    async build(orders, items) {
      // em.create() is synchronous: the keys it hands out must already be in memory
      await Promise.all([
        generator.ensure('customers', 1),
        generator.ensure('orders', orders),
        generator.ensure('order_items', orders * items),
      ]);
      const em = orm.em.fork();
      const name = `conformance ${built++}`;
      const customer = em.create(Customer, {
        name,
        orders: Array.from({ length: orders }, (_, o) => ({
          reference: `${name}-${o}`,
          items: Array.from({ length: items }, (_, i) => ({ sku: `${o}-${i}`, quantity: i + 1 })),
        })),
      });
      return { em, customer };
    },
    keysOf: ({ customer }) => ({
      customer: key(customer.id),
      orders: customer.orders
        .getItems()
        .map((o) => ({ id: key(o.id), items: o.items.getItems().map((i) => key(i.id)) })),
    }),
    async persist({ em }, inside) {
      await em.begin();
      try {
        await em.flush();
        inside?.();
        await em.commit();
      } catch (error) {
        await em.rollback();
        throw error;
      }
    },
    async rows(): Promise<StoredRows> {
      const [customers, orders, items] = await Promise.all([
        select(orm, 'select id from customers'),
        select(orm, 'select id, customer_id as customer from orders'),
        select(orm, 'select id, order_id as order_key from order_items'),
      ]);
      return {
        customers: customers.map((r) => key(r['id'])),
        orders: orders.map((r) => ({ id: key(r['id']), customer: key(r['customer']) })),
        items: items.map((r) => ({ id: key(r['id']), order: key(r['order_key']) })),
      };
    },
    async load() {
      const customers = await orm.em.fork().find(Customer, {}, { populate: ['orders.items'] });
      return customers.reduce((n, c) => n + 1 + c.orders.getItems().reduce((m, o) => m + 1 + o.items.length, 0), 0);
    },
    async keysIssued() {
      return Object.values(generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    },
    statementsSent: () => log.writes.filter((s) => !/hilo/i.test(s)).length,
    async close() {
      await orm.close();
    },
  };
}

/** The adapter conformance harness for hilo-mikro-orm (defineEntity model) on `kind`. */
export function mikroOrmHarness(kind: Kind): AdapterHarness<Graph> {
  return {
    name: `mikro-orm on ${kind}`,
    kind,
    async prepare(url) {
      const { orm } = await openOrm(kind, url, defineEntities, conformanceHiLoOptions);
      try {
        await createSchema(orm);
      } finally {
        await orm.close();
      }
    },
    open: (url, options) => openShop(kind, url, options),
    worker: {
      script: join(here, 'conformance-worker.ts'),
      // under the packages/mikro-orm-compat Jest project the worker maps `@mikro-orm/*` to the same release
      tsconfig: workerTsconfig,
      spec: compatVersion === undefined ? { kind } : { kind, mikroOrm: compatVersion },
    },
  };
}
