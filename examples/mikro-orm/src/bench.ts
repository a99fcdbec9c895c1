import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { HiLo } from 'hilo-mikro-orm';
import { v7 as uuidv7 } from 'uuid';
import { Customer, IdentityCustomer, IdentityOrder, Order, UuidCustomer, UuidOrder, entities, uuidEntities } from './entities.js';

/** What {@link benchGraph} measured: medians over `rounds` rounds that alternate which side goes first. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  rounds: number;
  /** Milliseconds from `em.create()` of the graph (keys assigned there) to the end of its `flush()`. */
  hiloMs: number;
  /** Milliseconds to create and flush the same graph with MikroORM's autoincrement keys. */
  identityMs: number;
  /** Milliseconds to create and flush the same graph keyed by UUIDv7s generated at `em.create()`. */
  uuidv7Ms: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  /** Statements sent for one graph (the flush's BEGIN and COMMIT included). */
  hiloStatements: number;
  identityStatements: number;
  uuidv7Statements: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Flushes `orders` orders of `items` items each with hilo keys, with autoincrement keys and with UUIDv7
 * keys (uuid columns, generated in the application at `em.create()`), rotating which goes first for `rounds`
 * rounds after a small warm-up, on the PostgreSQL database at `url`. All sides run the same code —
 * `em.create()` each order with its items, one `flush()` — in a fresh fork. The hilo side includes the time
 * its key reservations take, the UUIDv7 side the time generating its keys takes.
 */
export async function benchGraph(
  url: string,
  { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number },
): Promise<GraphBenchResult> {
  let statements = 0;
  const orm = await MikroORM.init({
    clientUrl: url,
    entities: [...entities, ...uuidEntities],
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
    const uuidCustomer = setup.create(UuidCustomer, { id: uuidv7(), email: 'bench@uuid.example' });
    await setup.flush();

    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3) });
    const sides = {
      hilo: (em: EntityManager, count: number) => {
        const owner = em.getReference(Customer, customer.id);
        for (let o = 0; o < count; o++) {
          em.create(Order, { customer: owner, placedAt: new Date(), items: Array.from({ length: items }, (_, n) => line(n)) });
        }
      },
      identity: (em: EntityManager, count: number) => {
        const owner = em.getReference(IdentityCustomer, identityCustomer.id);
        for (let o = 0; o < count; o++) {
          em.create(IdentityOrder, { customer: owner, placedAt: new Date(), items: Array.from({ length: items }, (_, n) => line(n)) });
        }
      },
      uuidv7: (em: EntityManager, count: number) => {
        const owner = em.getReference(UuidCustomer, uuidCustomer.id);
        for (let o = 0; o < count; o++) {
          em.create(UuidOrder, {
            id: uuidv7(),
            customer: owner,
            placedAt: new Date(),
            items: Array.from({ length: items }, (_, n) => ({ id: uuidv7(), ...line(n) })),
          });
        }
      },
    };
    type Side = keyof typeof sides;
    const graph = async (side: Side, count: number) => {
      const em: EntityManager = orm.em.fork();
      sides[side](em, count);
      await em.flush();
    };
    const time = async (side: Side) => {
      const before = statements;
      const start = performance.now();
      await graph(side, orders);
      return { ms: performance.now() - start, statements: statements - before };
    };

    const order: Side[] = ['hilo', 'identity', 'uuidv7'];
    // Warm-up: JIT, MikroORM's metadata caches and hilo's adaptive block size settle on every side.
    for (let w = 0; w < 2; w++) for (const side of order) await graph(side, Math.ceil(orders / 4));
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
    await orm.close();
  }
}
