// hilo wraps two of TypeORM's private methods on prototypes every DataSource shares. A DataSource of the same
// process without hilo must not notice: it sends exactly the SQL stock TypeORM sends. Jest gives this file its
// own TypeORM, so "stock" is measured here first, before any installHiLo() wraps anything.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { describePostgres } from '@hilo/testing';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem, Tag, entities } from './support/entities.js';
import { StatementLog } from './support/statement-log.js';

/** A customer with two orders of three items and a tag, every key set by hand from `base`. */
function graph(base: number): Order[] {
  const customer = Object.assign(new Customer(), { id: base, name: `customer ${base}` });
  const tag = Object.assign(new Tag(), { id: BigInt(base), label: `tag ${base}` });
  return [1, 2].map((o) =>
    Object.assign(new Order(), {
      id: base + o,
      customer,
      customerId: base,
      tags: [tag],
      total: o,
      items: [1, 2, 3].map((i) =>
        Object.assign(new OrderItem(), { id: base + 10 * o + i, sku: `sku-${i}`, quantity: i }),
      ),
    }),
  );
}

/** The statements with every number that is a hand-set key (or derived from it) blanked, for comparison. */
const shape = (statements: readonly string[]) => statements.map((s) => s.replace(/\d+/g, 'N'));

describePostgres('typeorm: a DataSource without hilo in the same process runs stock TypeORM', (db) => {
  it('sends the same SQL for a hand-keyed graph before and after hilo is installed on another DataSource', async () => {
    const log = new StatementLog();
    const plain = new DataSource({ type: 'postgres', url: db.url, entities, synchronize: true, logger: log });
    await plain.initialize();
    const withKeys = withHiLo(new DataSource({ type: 'postgres', url: db.url, entities }));
    try {
      const stock = await log.capture(() => plain.getRepository(Order).save(graph(1000)));
      expect(stock.some((s) => /^SELECT/i.test(s.trim()))).toBe(true); // TypeORM looks keys up before INSERT

      await withKeys.initialize(); // installs hilo: TypeORM's prototypes are wrapped from here on
      const order = withKeys.getRepository(Order).create({ total: 1, items: [], tags: [] });
      expect(typeof order.id).toBe('number');

      const after = await log.capture(() => plain.getRepository(Order).save(graph(2000)));
      expect(shape(after)).toEqual(shape(stock));
      expect(after).toHaveLength(stock.length);
      expect(await plain.getRepository(OrderItem).count()).toBe(12);
    } finally {
      if (withKeys.isInitialized) await withKeys.destroy();
      await plain.destroy();
    }
  });
});
