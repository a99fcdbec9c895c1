/**
 * Shared set-up for hilo-prisma's database tests: tables created with SQL (no migrate here), the
 * safety net installed with the package's own helpers, and Prisma clients from the clients `pnpm build`
 * generates into test/generated/ (run `pnpm --filter hilo-prisma build` after changing a test schema).
 */
import pg from 'pg';
import mysql from 'mysql2/promise';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { safetyNetSql } from '../src/safety-net.js';
import { hiloMetadata as pgMetadata } from './generated/postgres/hilo.js';
import { hiloMetadata as myMetadata } from './generated/mysql/hilo.js';
import { PrismaClient as PgPrismaClient } from './generated/postgres/client.js';
import { PrismaClient as MyPrismaClient } from './generated/mysql/client.js';

export type Kind = 'postgres' | 'mysql';

/** Both test schemas describe the same models; the PostgreSQL client's types stand for both. */
export type BaseClient = PgPrismaClient;
export const metadataFor = (kind: Kind) => (kind === 'postgres' ? pgMetadata : myMetadata) as typeof pgMetadata;

const pgTables = [
  `create table customers (id bigint primary key, name text not null)`,
  `create table profiles (id integer primary key, bio text not null, customer_id bigint not null unique references customers(id))`,
  `create table orders (id bigint primary key, reference text not null unique, customer_id bigint not null references customers(id))`,
  `create table order_items (item_id bigint primary key, order_id bigint not null references orders(id), ` +
    `sku text not null, quantity integer not null)`,
  `create table item_notes (id integer primary key, item_id bigint not null references order_items(item_id), text text not null)`,
  `create table tags (id serial primary key, label text not null unique)`,
];

const myTables = [
  `create table customers (id bigint not null primary key, name varchar(191) not null)`,
  `create table profiles (id int not null primary key, bio varchar(191) not null, customer_id ` +
    `bigint not null unique, foreign key (customer_id) references customers(id))`,
  `create table orders (id bigint not null primary key, reference varchar(191) not null unique, ` +
    `customer_id bigint not null, foreign key (customer_id) references customers(id))`,
  `create table order_items (item_id bigint not null primary key, order_id bigint not null, sku ` +
    `varchar(191) not null, quantity int not null, foreign key (order_id) references orders(id))`,
  `create table item_notes (id int not null primary key, item_id bigint not null, text varchar(191) ` +
    `not null, foreign key (item_id) references order_items(item_id))`,
  `create table tags (id int not null auto_increment primary key, label varchar(191) not null unique)`,
];

/** Runs statements on the test database through a plain driver connection. */
export async function execute(kind: Kind, url: string, statements: readonly string[]): Promise<void> {
  if (kind === 'postgres') {
    const client = new pg.Client(url);
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  } else {
    const connection = await mysql.createConnection({ uri: url });
    try {
      for (const sql of statements) await connection.query(sql);
    } finally {
      await connection.end();
    }
  }
}

/** Creates the tables and installs the safety net (PostgreSQL default function, MariaDB triggers). */
export async function createSchema(kind: Kind, url: string): Promise<void> {
  await execute(kind, url, [...(kind === 'postgres' ? pgTables : myTables), ...safetyNetSql(kind, metadataFor(kind))]);
}

/** A Prisma client on the test database through the driver adapter, with every SQL statement recorded. */
export function createBaseClient(kind: Kind, url: string): { prisma: BaseClient; queries: string[] } {
  const queries: string[] = [];
  const log = [{ emit: 'event', level: 'query' }] as const;
  const prisma =
    kind === 'postgres'
      ? new PgPrismaClient({ adapter: new PrismaPg({ connectionString: url }), log: [...log] })
      : (new MyPrismaClient({
          adapter: new PrismaMariaDb(url.replace(/^mysql:/, 'mariadb:')),
          log: [...log],
        }) as unknown as BaseClient);
  (prisma as unknown as { $on(event: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) =>
    queries.push(e.query),
  );
  return { prisma, queries };
}

/** Rows of a table straight from the database, bypassing Prisma. */
export async function countRows(kind: Kind, url: string, table: string): Promise<number> {
  if (kind === 'postgres') {
    const client = new pg.Client(url);
    await client.connect();
    try {
      const r = await client.query(`select count(*)::int as n from ${table}`);
      return r.rows[0].n as number;
    } finally {
      await client.end();
    }
  }
  const connection = await mysql.createConnection({ uri: url });
  try {
    const [rows] = await connection.query(`select count(*) as n from ${table}`);
    return Number((rows as { n: number }[])[0]!.n);
  } finally {
    await connection.end();
  }
}
