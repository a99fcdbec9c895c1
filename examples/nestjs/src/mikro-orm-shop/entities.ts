import { Cascade, defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { hiloKey } from 'hilo-mikro-orm';

// hiloKey() gives the key at em.create(), before flush
export const MikroCustomer = defineEntity({
  name: 'MikroCustomer',
  tableName: 'mikro_customers',
  properties: {
    id: hiloKey(),
    name: p.string(),
    orders: () => p.oneToMany(MikroOrder).mappedBy('customer').cascade(Cascade.ALL),
  },
});

export const MikroOrder = defineEntity({
  name: 'MikroOrder',
  tableName: 'mikro_orders',
  properties: {
    id: hiloKey(),
    customer: () => p.manyToOne(MikroCustomer),
    total: p.integer(),
  },
});

export type MikroCustomer = InferEntity<typeof MikroCustomer>;
export type MikroOrder = InferEntity<typeof MikroOrder>;
