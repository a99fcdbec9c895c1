// The shop (customers → orders → order_items) as Drizzle tables on each database, with hi/lo keys through
// hilo's $defaultFn, and a way to open it. Shared by the conformance harness, its worker and the tests.
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzleMysql } from 'drizzle-orm/mysql2';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { bigint as pgBigint, integer as pgInteger, pgTable, text as pgText } from 'drizzle-orm/pg-core';
import { bigint as myBigint, int as myInt, mysqlTable, varchar } from 'drizzle-orm/mysql-core';
import { integer as liteInteger, sqliteTable, text as liteText } from 'drizzle-orm/sqlite-core';
import { hiloDrizzle, type HiLoDrizzle } from 'hilo-drizzle';
import type { KeySupplyOptions } from 'hilo-core/adapter-kit';

export type Kind = 'postgres' | 'mysql' | 'sqlite';

/** Small fixed blocks so that processes' reservations interleave. */
export const testHiLoOptions = { blockSize: 5, adaptive: false } as const;

export const DDL: Record<Kind, string[]> = {
  postgres: [
    'create table customers (id bigint primary key, name text not null)',
    'create table orders (id bigint primary key, customer_id bigint not null references customers(id), total integer not null)',
    'create table order_items (id bigint primary key, order_id bigint not null references orders(id), sku text not null)',
  ],
  mysql: [
    'create table customers (id bigint primary key, name varchar(100) not null)',
    'create table orders (id bigint primary key, customer_id bigint not null, total int not null, ' +
      'foreign key (customer_id) references customers(id))',
    'create table order_items (id bigint primary key, order_id bigint not null, sku varchar(100) ' +
      'not null, foreign key (order_id) references orders(id))',
  ],
  sqlite: [
    'create table customers (id integer primary key, name text not null)',
    'create table orders (id integer primary key, customer_id integer not null references customers(id), total integer not null)',
    'create table order_items (id integer primary key, order_id integer not null references orders(id), sku text not null)',
  ],
};

export function shopTables(kind: Kind, hilo: HiLoDrizzle) {
  const customerId = hilo.key('customers');
  const orderId = hilo.key('orders');
  const itemId = hilo.key('order_items');
  if (kind === 'postgres') {
    return {
      customers: pgTable('customers', {
        id: pgBigint('id', { mode: 'number' }).primaryKey().$defaultFn(customerId),
        name: pgText('name').notNull(),
      }),
      orders: pgTable('orders', {
        id: pgBigint('id', { mode: 'number' }).primaryKey().$defaultFn(orderId),
        customerId: pgBigint('customer_id', { mode: 'number' }).notNull(),
        total: pgInteger('total').notNull(),
      }),
      items: pgTable('order_items', {
        id: pgBigint('id', { mode: 'number' }).primaryKey().$defaultFn(itemId),
        orderId: pgBigint('order_id', { mode: 'number' }).notNull(),
        sku: pgText('sku').notNull(),
      }),
    };
  }
  if (kind === 'mysql') {
    return {
      customers: mysqlTable('customers', {
        id: myBigint('id', { mode: 'number' }).primaryKey().$defaultFn(customerId),
        name: varchar('name', { length: 100 }).notNull(),
      }),
      orders: mysqlTable('orders', {
        id: myBigint('id', { mode: 'number' }).primaryKey().$defaultFn(orderId),
        customerId: myBigint('customer_id', { mode: 'number' }).notNull(),
        total: myInt('total').notNull(),
      }),
      items: mysqlTable('order_items', {
        id: myBigint('id', { mode: 'number' }).primaryKey().$defaultFn(itemId),
        orderId: myBigint('order_id', { mode: 'number' }).notNull(),
        sku: varchar('sku', { length: 100 }).notNull(),
      }),
    };
  }
  return {
    customers: sqliteTable('customers', {
      id: liteInteger('id').primaryKey().$defaultFn(customerId),
      name: liteText('name').notNull(),
    }),
    orders: sqliteTable('orders', {
      id: liteInteger('id').primaryKey().$defaultFn(orderId),
      customerId: liteInteger('customer_id').notNull(),
      total: liteInteger('total').notNull(),
    }),
    items: sqliteTable('order_items', {
      id: liteInteger('id').primaryKey().$defaultFn(itemId),
      orderId: liteInteger('order_id').notNull(),
      sku: liteText('sku').notNull(),
    }),
  };
}

export type ShopTables = ReturnType<typeof shopTables>;

/** The URL hilo opens its own connection with: the harness gives SQLite as a bare file path. */
export const hiloUrl = (kind: Kind, url: string): string => (kind === 'sqlite' ? `sqlite:${url}` : url);

/**
 * A Drizzle database with hilo on the shop. `db` is typed loosely (one of three dialects); `statements`
 * counts what Drizzle sends (hilo's own connection is not Drizzle's, so it is never counted).
 */
export interface OpenShop {
  readonly db: any;
  readonly hilo: HiLoDrizzle;
  readonly tables: ShopTables;
  readonly kind: Kind;
  statements: number;
  /**
   * Runs the queries `build(tx)` returns, in order, in one Drizzle transaction, then `inside` (whose throw
   * rolls it back). On better-sqlite3 the transaction is synchronous (`.run()`), elsewhere awaited.
   */
  write(build: (tx: any) => any[], inside?: () => void): Promise<void>;
  /** Ends Drizzle's driver only, leaving hilo open (what a script that forgets hilo's `close()` does). */
  closeOrm(): Promise<void>;
  close(): Promise<void>;
}

export async function openShop(
  kind: Kind,
  url: string,
  options: Partial<KeySupplyOptions> = testHiLoOptions,
): Promise<OpenShop> {
  const hilo = hiloDrizzle({ url: hiloUrl(kind, url), ...options });
  const tables = shopTables(kind, hilo);
  const counter = { statements: 0 };
  const logger = { logQuery: () => void counter.statements++ };
  let db: any;
  let closeDriver: () => Promise<void>;
  if (kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    // an idle connection the server drops (e.g. when the test database is dropped) must not crash the process
    pool.on('error', () => undefined);
    db = drizzlePg({ client: pool, logger });
    closeDriver = () => pool.end();
  } else if (kind === 'mysql') {
    const pool = mysql.createPool({ uri: url, connectionLimit: 3 });
    db = drizzleMysql({ client: pool, logger });
    closeDriver = () => pool.end();
  } else {
    const sqlite = new Database(url, { timeout: 10_000 });
    sqlite.pragma('journal_mode = WAL');
    db = drizzleSqlite({ client: sqlite, logger });
    closeDriver = async () => void sqlite.close();
  }
  const shop: OpenShop = {
    db,
    hilo,
    tables,
    kind,
    get statements() {
      return counter.statements;
    },
    async write(build, inside) {
      if (kind === 'sqlite') {
        db.transaction((tx: any) => {
          for (const query of build(tx)) query.run();
          inside?.();
        });
        return;
      }
      await db.transaction(async (tx: any) => {
        for (const query of build(tx)) await query;
        inside?.();
      });
    },
    closeOrm: () => closeDriver(),
    async close() {
      try {
        await hilo.close();
      } finally {
        await closeDriver();
      }
    },
  };
  return shop;
}
