import { adapterSuite } from './support/adapter-suite.js';
import { Customer, Order, OrderItem } from './fixtures/legacy-entities.js';

adapterSuite('postgres', {
  style: 'legacy decorators',
  entities: [Customer, Order, OrderItem],
  Customer,
  Order,
  OrderItem,
  segments: ['customers', 'order_items', 'orders'],
});
