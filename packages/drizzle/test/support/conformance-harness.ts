import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asc } from 'drizzle-orm';
import type { AdapterHarness, AdapterShop, ConformanceHiLoOptions, StoredRows } from '@hilo/testing';
import { DDL, openShop, testHiLoOptions, type Kind } from './shop.js';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';

const here = dirname(fileURLToPath(import.meta.url));

interface Graph {
  readonly customer: { id: number; name: string };
  readonly orders: Array<{
    id: number;
    customerId: number;
    total: number;
    items: Array<{ id: number; orderId: number; sku: string }>;
  }>;
}

/** Runs the shop's DDL on a fresh database. */
export async function createShopTables(kind: Kind, url: string): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const sql of DDL.postgres) await client.query(sql);
    } finally {
      await client.end();
    }
  } else if (kind === 'mysql') {
    const connection = await mysql.createConnection({ uri: url });
    try {
      for (const sql of DDL.mysql) await connection.query(sql);
    } finally {
      await connection.end();
    }
  } else {
    const db = new Database(url);
    try {
      for (const sql of DDL.sqlite) db.exec(sql);
    } finally {
      db.close();
    }
  }
}

async function open(kind: Kind, url: string, options: ConformanceHiLoOptions = {}): Promise<AdapterShop<Graph>> {
  const shop = await openShop(kind, url, { ...testHiLoOptions, ...options });
  const { db, hilo, tables } = shop;
  const [customerKey, orderKey, itemKey] = [tables.customers, tables.orders, tables.items].map(
    (t) => (t as any).id.defaultFn as () => number,
  );
  let built = 0;
  return {
    async build(orders, items) {
      // the keys are drawn synchronously from memory; ensure() puts enough there first
      await Promise.all([
        hilo.ensure(tables.customers, 1),
        hilo.ensure(tables.orders, orders),
        hilo.ensure(tables.items, orders * items),
      ]);
      const customer = { id: customerKey!(), name: `conformance ${built++}` };
      return {
        customer,
        orders: Array.from({ length: orders }, (_, o) => {
          const id = orderKey!();
          return {
            id,
            customerId: customer.id,
            total: o,
            items: Array.from({ length: items }, (_, i) => ({ id: itemKey!(), orderId: id, sku: `${o}-${i}` })),
          };
        }),
      };
    },
    keysOf: (graph) => ({
      customer: BigInt(graph.customer.id),
      orders: graph.orders.map((o) => ({ id: BigInt(o.id), items: o.items.map((i) => BigInt(i.id)) })),
    }),
    persist: (graph, inside) =>
      shop.write(
        (tx) => [
          tx.insert(tables.customers).values(graph.customer),
          ...(graph.orders.length
            ? [tx.insert(tables.orders).values(graph.orders.map(({ items: _, ...o }) => o))]
            : []),
          ...(graph.orders.some((o) => o.items.length)
            ? [tx.insert(tables.items).values(graph.orders.flatMap((o) => o.items))]
            : []),
        ],
        inside,
      ),
    async rows(): Promise<StoredRows> {
      const [customers, orders, items] = await Promise.all([
        db.select({ id: tables.customers.id }).from(tables.customers),
        db.select({ id: tables.orders.id, customer: tables.orders.customerId }).from(tables.orders),
        db.select({ id: tables.items.id, order: tables.items.orderId }).from(tables.items),
      ]);
      return {
        customers: customers.map((r: any) => BigInt(r.id)),
        orders: orders.map((r: any) => ({ id: BigInt(r.id), customer: BigInt(r.customer) })),
        items: items.map((r: any) => ({ id: BigInt(r.id), order: BigInt(r.order) })),
      };
    },
    async load() {
      const customers = await db.select().from(tables.customers).orderBy(asc(tables.customers.id));
      const orders = await db.select().from(tables.orders);
      const items = await db.select().from(tables.items);
      return customers.length + orders.length + items.length;
    },
    async keysIssued() {
      return Object.values((await hilo.generator()).stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    },
    statementsSent: () => shop.statements,
    close: () => shop.close(),
  };
}

const compatVersion = (globalThis as { HILO_DRIZZLE_VERSION?: string }).HILO_DRIZZLE_VERSION;

/** The adapter conformance harness for hilo-drizzle on `kind`. */
export function drizzleHarness(kind: Kind): AdapterHarness<Graph> {
  return {
    name: `drizzle on ${kind}`,
    kind,
    prepare: (url) => createShopTables(kind, url),
    open: (url, options) => open(kind, url, options),
    worker: {
      script: join(here, '..', 'child', 'conformance-worker.ts'),
      // under a packages/drizzle-compat Jest project (jest.config.ts) the worker maps `drizzle-orm` to the same release
      tsconfig:
        compatVersion === undefined
          ? join(here, '..', 'child', 'tsconfig.json')
          : join(here, '..', '..', '..', 'drizzle-compat', 'child', `tsconfig.drizzle-${compatVersion}.json`),
      spec: compatVersion === undefined ? { kind } : { kind, drizzle: compatVersion },
    },
  };
}
