import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { HiLo } from 'hilo-mikro-orm';
import { Customer, IdentityCustomer, IdentityOrder, Order, entities } from './entities.js';

/** What {@link benchGraph} measured: medians over `rounds` rounds that alternate which side goes first. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  rounds: number;
  /** Milliseconds from `em.create()` of the graph (keys assigned there) to the end of its `flush()`. */
  hiloMs: number;
  /** Milliseconds to create and flush the same graph with MikroORM's autoincrement keys. */
  identityMs: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  /** Statements sent for one graph (the flush's BEGIN and COMMIT included). */
  hiloStatements: number;
  identityStatements: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Flushes `orders` orders of `items` items each, once with hilo keys and once with autoincrement keys,
 * alternating for `rounds` rounds after a small warm-up, on the PostgreSQL database at `url`. Both sides run
 * the same code — `em.create()` each order with its items, one `flush()` — in a fresh fork. The hilo side
 * includes the time its key reservations take.
 */
export async function benchGraph(
  url: string,
  { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number },
): Promise<GraphBenchResult> {
  let statements = 0;
  const orm = await MikroORM.init({
    clientUrl: url,
    entities,
    extensions: [HiLo],
    debug: ['query'],
    logger: (message) => {
      if (message.startsWith('[query] ')) statements++;
    },
    colors: false,
  });
  try {
    await orm.schema.refresh();
    const setup = orm.em.fork();
    const customer = setup.create(Customer, { email: 'bench@hilo.example' });
    const identityCustomer = setup.create(IdentityCustomer, { email: 'bench@identity.example' });
    await setup.flush();

    const graph = async (count: number, hilo: boolean) => {
      const em: EntityManager = orm.em.fork();
      const owner = hilo ? em.getReference(Customer, customer.id) : em.getReference(IdentityCustomer, identityCustomer.id);
      for (let o = 0; o < count; o++) {
        em.create(hilo ? Order : (IdentityOrder as unknown as typeof Order), {
          customer: owner as never,
          placedAt: new Date(),
          items: Array.from({ length: items }, (_, n) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3) })),
        });
      }
      await em.flush();
    };
    const time = async (hilo: boolean) => {
      const before = statements;
      const start = performance.now();
      await graph(orders, hilo);
      return { ms: performance.now() - start, statements: statements - before };
    };

    // Warm-up: JIT, MikroORM's metadata caches and hilo's adaptive block size settle on both sides.
    for (let w = 0; w < 2; w++) {
      await graph(Math.ceil(orders / 4), true);
      await graph(Math.ceil(orders / 4), false);
    }
    const hiloRuns: { ms: number; statements: number }[] = [];
    const identityRuns: { ms: number; statements: number }[] = [];
    // Alternate which side goes first, so that neither always inherits the other's garbage.
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        hiloRuns.push(await time(true));
        identityRuns.push(await time(false));
      } else {
        identityRuns.push(await time(false));
        hiloRuns.push(await time(true));
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
    await orm.close();
  }
}
