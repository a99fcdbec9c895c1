import { Cascade, defineEntity, p } from '@mikro-orm/core';
import { hiloKey } from 'hilo-mikro-orm';

/** A customer; `hiloKey()` gives it a key at `em.create()`, before anything is written. */
export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    id: hiloKey(),
    email: p.string().unique(),
    orders: () => p.oneToMany(Order).mappedBy('customer').cascade(Cascade.ALL),
  },
});

export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  properties: {
    id: hiloKey(),
    customer: () => p.manyToOne(Customer),
    placedAt: p.datetime(),
    items: () => p.oneToMany(OrderItem).mappedBy('order').cascade(Cascade.ALL),
  },
});

export const OrderItem = defineEntity({
  name: 'OrderItem',
  tableName: 'order_items',
  properties: {
    id: hiloKey(),
    order: () => p.manyToOne(Order),
    sku: p.string(),
    quantity: p.integer(),
  },
});

// The same shop with MikroORM's own autoincrement keys, to compare what a flush sends. bigint keys (bigserial),
// as hilo's side has and as the Drizzle and Kysely benchmarks compare with, so that the comparison is of how a
// key is made, not of its width.
export const IdentityCustomer = defineEntity({
  name: 'IdentityCustomer',
  tableName: 'identity_customers',
  properties: {
    id: p.bigint('number').primary(),
    email: p.string(),
    orders: () => p.oneToMany(IdentityOrder).mappedBy('customer').cascade(Cascade.ALL),
  },
});

export const IdentityOrder = defineEntity({
  name: 'IdentityOrder',
  tableName: 'identity_orders',
  properties: {
    id: p.bigint('number').primary(),
    customer: () => p.manyToOne(IdentityCustomer),
    placedAt: p.datetime(),
    items: () => p.oneToMany(IdentityOrderItem).mappedBy('order').cascade(Cascade.ALL),
  },
});

export const IdentityOrderItem = defineEntity({
  name: 'IdentityOrderItem',
  tableName: 'identity_order_items',
  properties: {
    id: p.bigint('number').primary(),
    order: () => p.manyToOne(IdentityOrder),
    sku: p.string(),
    quantity: p.integer(),
  },
});

export const entities = [Customer, Order, OrderItem, IdentityCustomer, IdentityOrder, IdentityOrderItem];

// The same shop keyed by UUIDv7 generated in the application (the `uuid` package), the usual way to know a
// key before the insert without hi/lo: what `pnpm bench` compares hilo's keys with.
export const UuidCustomer = defineEntity({
  name: 'UuidCustomer',
  tableName: 'uuid_customers',
  properties: {
    id: p.string().columnType('uuid').primary(),
    email: p.string(),
    orders: () => p.oneToMany(UuidOrder).mappedBy('customer').cascade(Cascade.ALL),
  },
});

export const UuidOrder = defineEntity({
  name: 'UuidOrder',
  tableName: 'uuid_orders',
  properties: {
    id: p.string().columnType('uuid').primary(),
    customer: () => p.manyToOne(UuidCustomer),
    placedAt: p.datetime(),
    items: () => p.oneToMany(UuidOrderItem).mappedBy('order').cascade(Cascade.ALL),
  },
});

export const UuidOrderItem = defineEntity({
  name: 'UuidOrderItem',
  tableName: 'uuid_order_items',
  properties: {
    id: p.string().columnType('uuid').primary(),
    order: () => p.manyToOne(UuidOrder),
    sku: p.string(),
    quantity: p.integer(),
  },
});
/** The UUID-keyed shop, for the benchmark only. */
export const uuidEntities = [UuidCustomer, UuidOrder, UuidOrderItem];
