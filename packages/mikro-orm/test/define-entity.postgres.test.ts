import { adapterSuite } from './support/adapter-suite.js';
import { Customer, Order, OrderItem, defineEntities } from './fixtures/define-entities.js';

adapterSuite('postgres', {
  style: 'defineEntity',
  entities: defineEntities,
  Customer,
  Order,
  OrderItem,
  segments: ['customers', 'order_items', 'orders'],
});
