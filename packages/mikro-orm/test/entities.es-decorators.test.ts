import { adapterSuite, type ShopModel } from './support/adapter-suite.js';
import { Customer, Order, OrderItem, esEntities } from './fixtures/shop.es-decorators.js';

const model: ShopModel = {
  style: 'ES decorators',
  entities: esEntities,
  Customer,
  Order,
  OrderItem,
  segments: ['customers', 'items', 'orders'],
};

adapterSuite('postgres', model);
adapterSuite('mysql', model);
