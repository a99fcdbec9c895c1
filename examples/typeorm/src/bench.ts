import { DataSource } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem } from './entities.js';
import { IdentityCustomer, IdentityOrder, IdentityOrderItem } from './identity-entities.js';
import { UuidCustomer, UuidOrder, UuidOrderItem } from './uuid-entities.js';
import { v7 as uuidv7 } from 'uuid';
import { StatementCounter } from './main.js';

/** What {@link benchGraph} measured: medians over `rounds` rounds that alternate which side goes first. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  rounds: number;
  /** Milliseconds from `create()` of the graph (keys assigned there) to the commit of its `save()`. */
  hiloMs: number;
  /** Milliseconds to build and save the same graph with `@PrimaryGeneratedColumn()` keys. */
  identityMs: number;
  /** Milliseconds to build and save the same graph keyed by UUIDv7s the application generates at `create()`. */
  uuidv7Ms: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  /** Statements sent for one graph (BEGIN and COMMIT included). */
  hiloStatements: number;
  identityStatements: number;
  uuidv7Statements: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
    type Side = keyof typeof sides;
    const time = async (side: Side) => {
      const before = counter.count;
      const start = performance.now();
      await sides[side](orders);
      return { ms: performance.now() - start, statements: counter.count - before };
    };

    const order: Side[] = ['hilo', 'identity', 'uuidv7'];
    // Warm-up: JIT, TypeORM's metadata caches, and hilo's adaptive block size settle on every side.
    for (let w = 0; w < 2; w++) for (const side of order) await sides[side](Math.ceil(orders / 4));
    const runs: Record<Side, { ms: number; statements: number }[]> = { hilo: [], identity: [], uuidv7: [] };
    // Rotate which side goes first, so that none always inherits another's garbage.
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < order.length; k++) {
        const side = order[(r + k) % order.length]!;
        runs[side].push(await time(side));
      }
    }
    const ms = (side: Side) => median(runs[side].map((x) => x.ms));
    const count = (side: Side) => median(runs[side].map((x) => x.statements));
    return {
      orders,
      itemsPerOrder: items,
      rounds,
      hiloMs: ms('hilo'),
      identityMs: ms('identity'),
      uuidv7Ms: ms('uuidv7'),
      speedup: ms('identity') / ms('hilo'),
      hiloStatements: count('hilo'),
      identityStatements: count('identity'),
      uuidv7Statements: count('uuidv7'),
    };
  } finally {
    await dataSource.destroy();
  }
}
