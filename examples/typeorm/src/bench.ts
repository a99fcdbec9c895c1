import { DataSource } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem } from './entities.js';
import { IdentityCustomer, IdentityOrder, IdentityOrderItem } from './identity-entities.js';
import { UuidCustomer, UuidOrder, UuidOrderItem } from './uuid-entities.js';
import { v7 as uuidv7 } from 'uuid';
import { StatementCounter } from './main.js';
import { benchSides, type GraphBenchResult } from '@hilo/testing/bench';

export type { GraphBenchResult };

/**
 * Saves `orders` orders of `items` items each, in one transaction, with hilo keys, with TypeORM's identity
 * keys and with UUIDv7 keys (uuid columns, generated in the application at `create()`), rotating which goes
 * first for `rounds` rounds after a small warm-up, on the PostgreSQL database at `url`. All sides use the
 * same code: `create()` the graph, then `save()` the array of orders with its items cascaded. The hilo side
 * includes the time its key reservations take, the UUIDv7 side the time generating its keys takes.
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
      entities: [Customer, Order, OrderItem, IdentityCustomer, IdentityOrder, IdentityOrderItem, UuidCustomer, UuidOrder, UuidOrderItem],
      synchronize: true,
      logger: counter,
    }),
  );
  await dataSource.initialize();
  try {
    const customer = await dataSource.getRepository(Customer).save({ name: 'Bench', email: 'bench@example.com' });
    const identityCustomer = await dataSource.getRepository(IdentityCustomer).save({ name: 'Bench', email: 'bench@example.com' });
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), priceCents: 100 + n });

    const uuidCustomer = await dataSource.getRepository(UuidCustomer).save({ id: uuidv7(), name: 'Bench', email: 'bench@example.com' });
    const sides = {
      hilo: (count: number) =>
        dataSource.transaction(async (manager) => {
          const graph = Array.from({ length: count }, (_, o) =>
            manager.create(Order, { customerId: customer.id, items: Array.from({ length: items }, (_, n) => line(o * items + n)) }),
          );
          await manager.save(graph);
        }),
      identity: (count: number) =>
        dataSource.transaction(async (manager) => {
          const graph = Array.from({ length: count }, (_, o) =>
            manager.create(IdentityOrder, {
              customerId: identityCustomer.id,
              items: Array.from({ length: items }, (_, n) => line(o * items + n)),
            }),
          );
          await manager.save(graph);
        }),
      uuidv7: (count: number) =>
        dataSource.transaction(async (manager) => {
          const graph = Array.from({ length: count }, (_, o) => {
            const id = uuidv7();
            return manager.create(UuidOrder, {
              id,
              customerId: uuidCustomer.id,
              items: Array.from({ length: items }, (_, n) => ({ id: uuidv7(), orderId: id, ...line(o * items + n) })),
            });
          });
          await manager.save(graph);
        }),
    };
    // awaited here, so that the finally below closes the connections only after the last round
    return await benchSides({ orders, items, rounds }, (side, count) => sides[side](count), () => counter.count);
  } finally {
    await dataSource.destroy();
  }
}
