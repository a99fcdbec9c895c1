import { DataSource } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order, OrderItem } from './entities.js';
import { IdentityCustomer, IdentityOrder, IdentityOrderItem } from './identity-entities.js';
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
  /** `identityMs / hiloMs`. */
  speedup: number;
  /** Statements sent for one graph (BEGIN and COMMIT included). */
  hiloStatements: number;
  identityStatements: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Saves `orders` orders of `items` items each, in one transaction, once with hilo keys and once with
 * TypeORM's identity keys, alternating for `rounds` rounds after a small warm-up, on the PostgreSQL
 * database at `url`. Both sides use the same code: `create()` the graph, then `save()` the array of orders
 * with its items cascaded. The hilo side includes the time its key reservations take.
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
      entities: [Customer, Order, OrderItem, IdentityCustomer, IdentityOrder, IdentityOrderItem],
      synchronize: true,
      logger: counter,
    }),
  );
  await dataSource.initialize();
  try {
    const customer = await dataSource.getRepository(Customer).save({ name: 'Bench', email: 'bench@example.com' });
    const identityCustomer = await dataSource.getRepository(IdentityCustomer).save({ name: 'Bench', email: 'bench@example.com' });
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), priceCents: 100 + n });

    const hilo = async (count: number) => {
      await dataSource.transaction(async (manager) => {
        const graph = Array.from({ length: count }, (_, o) =>
          manager.create(Order, { customerId: customer.id, items: Array.from({ length: items }, (_, n) => line(o * items + n)) }),
        );
        await manager.save(graph);
      });
    };
    const identity = async (count: number) => {
      await dataSource.transaction(async (manager) => {
        const graph = Array.from({ length: count }, (_, o) =>
          manager.create(IdentityOrder, {
            customerId: identityCustomer.id,
            items: Array.from({ length: items }, (_, n) => line(o * items + n)),
          }),
        );
        await manager.save(graph);
      });
    };
    const time = async (fn: () => Promise<void>) => {
      const before = counter.count;
      const start = performance.now();
      await fn();
      return { ms: performance.now() - start, statements: counter.count - before };
    };

    // Warm-up: JIT, TypeORM's metadata caches, and hilo's adaptive block size settle on both sides.
    for (let w = 0; w < 2; w++) {
      await hilo(Math.ceil(orders / 4));
      await identity(Math.ceil(orders / 4));
    }
    const hiloRuns: { ms: number; statements: number }[] = [];
    const identityRuns: { ms: number; statements: number }[] = [];
    // Alternate which side goes first, so that neither always inherits the other's garbage.
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        hiloRuns.push(await time(() => hilo(orders)));
        identityRuns.push(await time(() => identity(orders)));
      } else {
        identityRuns.push(await time(() => identity(orders)));
        hiloRuns.push(await time(() => hilo(orders)));
      }
    }
    const hiloMs = median(hiloRuns.map((x) => x.ms));
    const identityMs = median(identityRuns.map((x) => x.ms));
    return {
      orders,
      itemsPerOrder: items,
      rounds,
      hiloMs,
      identityMs,
      speedup: identityMs / hiloMs,
      hiloStatements: median(hiloRuns.map((x) => x.statements)),
      identityStatements: median(identityRuns.map((x) => x.statements)),
    };
  } finally {
    await dataSource.destroy();
  }
}
