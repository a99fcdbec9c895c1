import { bigint, bigserial, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { v7 as uuidv7 } from 'uuid';
import { hiloDrizzle } from 'hilo-drizzle';

/**
 * The shop's tables with hi/lo keys, and for comparison the same tables with identity keys and with UUIDv7
 * keys generated in the application (the `uuid` package).
 */
export function shopSchema(hilo: ReturnType<typeof hiloDrizzle>) {
  const orders = pgTable('orders', {
    id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')),
    customerId: bigint('customer_id', { mode: 'number' }).notNull(),
  });
  return {
    customers: pgTable('customers', {
      id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('customers')),
      name: text('name').notNull(),
      email: text('email').notNull(),
    }),
    orders,
    items: pgTable('order_items', {
      id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('order_items')),
      // the foreign key tells hilo.loadGraph() that an item takes its order's key
      orderId: bigint('order_id', { mode: 'number' })
        .notNull()
        .references(() => orders.id),
      sku: text('sku').notNull(),
      quantity: integer('quantity').notNull(),
      priceCents: integer('price_cents').notNull(),
    }),
    identityOrders: pgTable('identity_orders', {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      customerId: bigint('customer_id', { mode: 'number' }).notNull(),
    }),
    identityItems: pgTable('identity_order_items', {
      id: bigserial('id', { mode: 'number' }).primaryKey(),
      orderId: bigint('order_id', { mode: 'number' }).notNull(),
      sku: text('sku').notNull(),
      quantity: integer('quantity').notNull(),
      priceCents: integer('price_cents').notNull(),
    }),
    uuidOrders: pgTable('uuid_orders', {
      id: uuid('id').primaryKey().$defaultFn(uuidv7),
      customerId: bigint('customer_id', { mode: 'number' }).notNull(),
    }),
    uuidItems: pgTable('uuid_order_items', {
      id: uuid('id').primaryKey().$defaultFn(uuidv7),
      orderId: uuid('order_id').notNull(),
      sku: text('sku').notNull(),
      quantity: integer('quantity').notNull(),
      priceCents: integer('price_cents').notNull(),
    }),
  };
}

/** The DDL (drizzle-kit would generate it; the example keeps to the runtime). */
export const DDL = [
  'create table customers (id bigint primary key, name text not null, email text not null)',
  'create table orders (id bigint primary key, customer_id bigint not null references customers(id))',
  'create table order_items (id bigint primary key, order_id bigint not null references orders(id), ' +
    'sku text not null, quantity integer not null, price_cents integer not null)',
  'create table identity_orders (id bigserial primary key, customer_id bigint not null references customers(id))',
  'create table identity_order_items (id bigserial primary key, order_id bigint not null references ' +
    'identity_orders(id), sku text not null, quantity integer not null, price_cents integer not ' +
    'null)',
  'create table uuid_orders (id uuid primary key, customer_id bigint not null references customers(id))',
  'create table uuid_order_items (id uuid primary key, order_id uuid not null references uuid_orders(id), ' +
    'sku text not null, quantity integer not null, price_cents integer not null)',
];
