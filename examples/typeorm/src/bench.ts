import { DataSource, type EntityManager } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem } from './entities.js';
import { IdentityCustomer, IdentityOrder, IdentityOrderItem } from './identity-entities.js';
import { UuidCustomer, UuidOrder, UuidOrderItem } from './uuid-entities.js';
import { v7 as uuidv7 } from 'uuid';
import { StatementCounter } from './main.js';
import { benchSides, timeSide, type GraphBenchResult } from '@hilo/testing/bench';

export type { GraphBenchResult };

/**
 * Saves `orders` orders of `items` items each, in one transaction, with hilo keys, with TypeORM's identity
 * keys and with UUIDv7 keys (uuid columns, generated in the application at `create()`), rotating which goes
 * first for `rounds` rounds after a small warm-up, on the PostgreSQL database at `url`. All sides use the
 * same code: `create()` the graph, then `save()` the array of orders with its items cascaded. The hilo side
 * includes the time its key reservations take, the UUIDv7 side the time generating its keys takes.
 *
 * hilo changes how TypeORM builds a save for the whole DataSource it is installed on (indexed cascade
 * and one-to-many lookups and direct id maps, see hilo-typeorm's typeorm-internals.ts), so the identity and UUIDv7 sides above
 * already run faster than in an application without hilo. `stock` stores the same identity and UUIDv7 graphs
 * on a second DataSource without hilo: TypeORM as it ships. Its UUIDv7 side is quadratic in the graph's size
 * (about 25 s for 1,000 orders × 10 items), so it runs once; the identity side `min(rounds, 3)` times.
 */
export async function benchGraph(
  url: string,
  { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number },
): Promise<GraphBenchResult> {
  const counter = new StatementCounter();
  const dataSource = withHiLo(
    new DataSource({
      type: 'postgres',
      url,
      entities: [
        Customer,
        Order,
        OrderItem,
        IdentityCustomer,
        IdentityOrder,
        IdentityOrderItem,
        UuidCustomer,
        UuidOrder,
        UuidOrderItem,
      ],
      synchronize: true,
      logger: counter,
    }),
  );
  const stockCounter = new StatementCounter();
  // the tables are the hilo DataSource's (it synchronizes them); this one only writes to them
  const stock = new DataSource({
    type: 'postgres',
    url,
    entities: [IdentityCustomer, IdentityOrder, IdentityOrderItem, UuidCustomer, UuidOrder, UuidOrderItem],
    logger: stockCounter,
  });
  await dataSource.initialize();
  try {
    await stock.initialize();
    const customer = await dataSource.getRepository(Customer).save({ name: 'Bench', email: 'bench@example.com' });
    const identityCustomer = await dataSource
      .getRepository(IdentityCustomer)
      .save({ name: 'Bench', email: 'bench@example.com' });
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), priceCents: 100 + n });

    const uuidCustomer = await dataSource
      .getRepository(UuidCustomer)
      .save({ id: uuidv7(), name: 'Bench', email: 'bench@example.com' });
    const hiloOrders = (manager: EntityManager, count: number) =>
      Array.from({ length: count }, (_, o) =>
        manager.create(Order, {
          customerId: customer.id,
          items: Array.from({ length: items }, (_, n) => line(o * items + n)),
        }),
      );
    const identityOrders = (manager: EntityManager, count: number) =>
      Array.from({ length: count }, (_, o) =>
        manager.create(IdentityOrder, {
          customerId: identityCustomer.id,
          items: Array.from({ length: items }, (_, n) => line(o * items + n)),
        }),
      );
    const uuidOrders = (manager: EntityManager, count: number) =>
      Array.from({ length: count }, (_, o) => {
        const id = uuidv7();
        return manager.create(UuidOrder, {
          id,
          customerId: uuidCustomer.id,
          items: Array.from({ length: items }, (_, n) => ({ id: uuidv7(), orderId: id, ...line(o * items + n) })),
        });
      });
    // every side: create() the graph, then save() the array of orders with its items cascaded, in one transaction
    const sides = {
      hilo: (count: number) => dataSource.transaction((manager) => manager.save(hiloOrders(manager, count))),
      identity: (count: number) => dataSource.transaction((manager) => manager.save(identityOrders(manager, count))),
      uuidv7: (count: number) => dataSource.transaction((manager) => manager.save(uuidOrders(manager, count))),
    };
    const result = await benchSides(
      { orders, items, rounds },
      (side, count) => sides[side](count),
      () => counter.count,
    );
    const identityRounds = Math.min(rounds, 3);
    const stockIdentity = await timeSide(
      identityRounds,
      orders,
      (count) => stock.transaction((manager) => manager.save(identityOrders(manager, count))),
      () => stockCounter.count,
    );
    const stockUuidv7 = await timeSide(
      1,
      orders,
      (count) => stock.transaction((manager) => manager.save(uuidOrders(manager, count))),
      () => stockCounter.count,
    );
    return {
      ...result,
      stock: {
        identityMs: stockIdentity.ms,
        uuidv7Ms: stockUuidv7.ms,
        identityStatements: stockIdentity.statements,
        uuidv7Statements: stockUuidv7.statements,
        identityRounds,
        uuidv7Rounds: 1,
        identityRunsMs: stockIdentity.runsMs,
        uuidv7RunsMs: stockUuidv7.runsMs,
      },
    };
  } finally {
    if (stock.isInitialized) await stock.destroy();
    await dataSource.destroy();
  }
}
