import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { HiLo } from 'hilo-mikro-orm';
import { v7 as uuidv7 } from 'uuid';
import {
  Customer,
  IdentityCustomer,
  IdentityOrder,
  Order,
  UuidCustomer,
  UuidOrder,
  entities,
  uuidEntities,
} from './entities.js';
import { benchSides, type GraphBenchResult } from '@hilo/testing/bench';

export type { GraphBenchResult };

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
          em.create(Order, {
            customer: owner,
            placedAt: new Date(),
            items: Array.from({ length: items }, (_, n) => line(n)),
          });
        }
      },
      identity: (em: EntityManager, count: number) => {
        const owner = em.getReference(IdentityCustomer, identityCustomer.id);
        for (let o = 0; o < count; o++) {
          em.create(IdentityOrder, {
            customer: owner,
            placedAt: new Date(),
            items: Array.from({ length: items }, (_, n) => line(n)),
          });
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
    // each graph in a fresh fork, flushed once
    const store = async (side: keyof typeof sides, count: number) => {
      const em: EntityManager = orm.em.fork();
      sides[side](em, count);
      await em.flush();
    };
    // awaited here, so that the finally below closes the connections only after the last round
    return await benchSides({ orders, items, rounds }, store, () => statements);
  } finally {
    await orm.close();
  }
}
