// The shop (customers → orders → order_items) for Kysely on each database, with hilo's plugin, and a way to
// open it. Shared by the conformance harness, its worker and the tests.
import Database from 'better-sqlite3';
import { createPool as createMysqlPool } from 'mysql2';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type Generated, type MysqlDialectConfig } from 'kysely';
import type { KeySupplyOptions } from 'hilo-core/adapter-kit';
import { hiloKysely, type HiLoKysely } from 'hilo-kysely';

export type Kind = 'postgres' | 'mysql' | 'sqlite';

/** The shop's tables as Kysely sees them: keys are optional on insert, hilo fills them. */
export interface ShopDatabase {
  customers: { id: Generated<number>; name: string };
  orders: { id: Generated<number>; customer_id: number; total: number };
  order_items: { id: Generated<number>; order_id: number; sku: string };
}

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

/** The URL hilo opens its own connection with: the harness gives SQLite as a bare file path. */
export const hiloUrl = (kind: Kind, url: string): string => (kind === 'sqlite' ? `sqlite:${url}` : url);

export interface OpenShop {
  readonly db: Kysely<ShopDatabase>;
  readonly hilo: HiLoKysely;
  /** Statements Kysely has run (hilo's own connection is not Kysely's, so it is never counted). */
  readonly statements: number;
  /** Destroys Kysely only, leaving hilo open (what a script that forgets hilo's `close()` does). */
  closeOrm(): Promise<void>;
  close(): Promise<void>;
}

export async function openShop(
  kind: Kind,
  url: string,
  options: Partial<KeySupplyOptions> = testHiLoOptions,
): Promise<OpenShop> {
  const hilo = hiloKysely({
    url: hiloUrl(kind, url),
    ...options,
    tables: { customers: true, orders: true, order_items: true },
  });
  const counter = { statements: 0 };
  let dialect;
  if (kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    // an idle connection the server drops (e.g. when the test database is dropped) must not crash the process
    pool.on('error', () => undefined);
    dialect = new PostgresDialect({ pool });
  } else if (kind === 'mysql') {
    // mysql2's Pool type and Kysely 0.27's MysqlPool interface disagree on callback types; the pool is the same
    dialect = new MysqlDialect({
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under Kysely 0.27 (kysely-compat)
      pool: createMysqlPool({ uri: url, connectionLimit: 3 }) as unknown as MysqlDialectConfig['pool'],
    });
  } else {
    const sqlite = new Database(url, { timeout: 10_000 });
    sqlite.pragma('journal_mode = WAL');
    dialect = new SqliteDialect({ database: sqlite });
  }
  const db = new Kysely<ShopDatabase>({
    dialect,
    plugins: [hilo.plugin],
    log: (event) => {
      if (event.level === 'query') counter.statements++;
    },
  });
  return {
    db,
    hilo,
    get statements() {
      return counter.statements;
    },
    closeOrm: () => db.destroy(),
    async close() {
      try {
        await hilo.close();
      } finally {
        await db.destroy();
      }
    },
  };
}
