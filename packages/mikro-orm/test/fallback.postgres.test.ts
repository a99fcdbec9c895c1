import type { MikroORM } from '@mikro-orm/core';
import { describePostgres } from '@hilo/testing';
import { HiLo } from '../src/index.js';
import { Customer, Order, OrderItem, legacyEntities } from './fixtures/legacy-entities.js';
import { openOrm, type StatementLog } from './support/orm.js';
import { createSchema } from './support/compat.js';

describePostgres('mikro-orm: keys filled at flush when memory is empty', (db) => {
  let orm: MikroORM;
  let log: StatementLog;

  beforeAll(async () => {
    // tiny blocks, no prefetch: every block boundary leaves memory empty until the flush reserves
    ({ orm, log } = await openOrm('postgres', db.url, legacyEntities, {
      blockSize: 4,
      prefetchAt: false,
      adaptive: false,
    }));
    await createSchema(orm);
  });
  afterAll(async () => {
    await orm?.close();
  });
  beforeEach(() => log.clear());

  it('should give new Entity() + em.persist() a key at flush', async () => {
    await HiLo.generator(orm).reserve('customers', 4); // drains the block in hand
    const em = orm.em.fork();
    const customer = new Customer();
    customer.name = 'constructed';
    em.persist(customer);
    expect(customer.id).toBeUndefined();
    await em.flush();
    expect(Number.isSafeInteger(customer.id)).toBe(true);
    expect(log.inserts('customers')).toHaveLength(1);
    const loaded = await orm.em.fork().findOneOrFail(Customer, customer.id);
    expect(loaded.name).toBe('constructed');
  });

  it('should key a burst larger than the block: first from memory, the rest at flush, one insert per table', async () => {
    const em = orm.em.fork();
    const customer = em.create(Customer, { name: 'burst' });
    const orders = Array.from({ length: 30 }, (_, i) => em.create(Order, { customer, reference: `b${i}` }));
    const early = orders.filter((o) => o.id !== undefined);
    expect(early.length).toBeLessThan(orders.length);
    await em.flush();
    const ids = orders.map((o) => o.id);
    expect(ids.every((id) => Number.isSafeInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(30);
    expect(log.inserts('orders')).toHaveLength(1);
    expect(log.statements.filter((s) => /\breturning\b/i.test(s))).toEqual([]);
    const rows = await orm.em.fork().find(Order, { customer: customer.id });
    expect(rows.map((o) => o.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('should wire foreign keys to parents that got their keys at flush', async () => {
    // only the middle of the graph waits for a reservation; its children take their keys from memory
    const generator = HiLo.generator(orm);
    while (generator.tryNextSync('orders') !== undefined);
    const em = orm.em.fork();
    const customer = em.create(Customer, {
      name: 'late',
      orders: [{ reference: 'late-1', items: [{ sku: 'late-sku', quantity: 1 }] }],
    });
    const order = customer.orders[0]!;
    const item = order.items[0]!;
    expect(order.id).toBeUndefined();
    expect(Number.isSafeInteger(item.id)).toBe(true);
    await em.flush();
    expect([customer.id, order.id, item.id].every((id) => Number.isSafeInteger(id))).toBe(true);
    const loaded = await orm.em.fork().findOneOrFail(OrderItem, item.id, { populate: ['order.customer'] });
    expect(loaded.order.id).toBe(order.id);
    expect(loaded.order.customer.id).toBe(customer.id);
  });

  it('should fill entity instances passed to em.insertMany()', async () => {
    const em = orm.em.fork();
    const customers = Array.from({ length: 6 }, (_, i) => Object.assign(new Customer(), { name: `raw${i}` }));
    const ids = await em.insertMany(customers);
    expect(ids).toEqual(customers.map((c) => c.id));
    expect(new Set(ids).size).toBe(6);
  });
});
