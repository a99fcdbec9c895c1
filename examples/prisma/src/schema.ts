import pg from 'pg';
import { safetyNetSql } from 'hilo-prisma';
import { hiloMetadata } from './generated/prisma/hilo.js';

// What `prisma migrate` would create from prisma/schema.prisma, written by hand so the example needs no
// migration engine. Idempotent, so the demo can run twice against the same database.
const tables = [
  `create table if not exists customers (id bigint primary key, email text not null unique, name text not null)`,
  `create table if not exists orders (
     id bigint primary key, number text not null unique,
     customer_id bigint not null references customers(id))`,
  `create table if not exists order_items (
     id bigint primary key, order_id bigint not null references orders(id),
     sku text not null, quantity integer not null, unit_price integer not null)`,
  `create table if not exists identity_orders (
     id bigserial primary key, number text not null unique,
     customer_id bigint not null references customers(id))`,
  `create table if not exists identity_order_items (
     id bigserial primary key, order_id bigint not null references identity_orders(id),
     sku text not null, quantity integer not null, unit_price integer not null)`,
  `create table if not exists uuid_orders (
     id uuid primary key, number text not null unique,
     customer_id bigint not null references customers(id))`,
  `create table if not exists uuid_order_items (
     id uuid primary key, order_id uuid not null references uuid_orders(id),
     sku text not null, quantity integer not null, unit_price integer not null)`,
];

/**
 * Creates the shop's tables, then hilo's safety net: a key default that raises when a row arrives
 * without a key (`hilo_missing_key('orders')`), the database side of `@default(dbgenerated(...))`.
 */
export async function createShopSchema(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of [...tables, ...safetyNetSql('postgres', hiloMetadata)]) await client.query(sql);
  } finally {
    await client.end();
  }
}
