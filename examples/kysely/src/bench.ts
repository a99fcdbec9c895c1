import { v7 as uuidv7 } from 'uuid';
import { openShop } from './main.js';
import { benchSides, type GraphBenchResult } from '@hilo/testing/bench';

export type { GraphBenchResult };

/**
 * Inserts `orders` orders of `items` items each in one transaction, with hilo keys (keys drawn in memory,
 * then one multi-row INSERT per table), with identity keys (orders `RETURNING id`, then the items
 * `RETURNING id`) and with UUIDv7 keys generated in the application (one multi-row INSERT per table),
 * rotating which goes first for `rounds` rounds after a warm-up. Every side ends holding every key it
 * stored, as the ORMs' identity paths do; the hilo side includes its reservations, the UUIDv7 side the time
 * generating its keys takes.
 */
export async function benchGraph(
  url: string,
  { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number },
): Promise<GraphBenchResult> {
  const shop = await openShop(url);
  const { db, hilo, counter } = shop;
  const generator = await hilo.generator();
  try {
    const [customer] = await db
      .insertInto('customers')
      .values({ name: 'Bench', email: 'bench@example.com' })
      .returning('id')
      .execute();
    const customerId = Number(customer!.id);
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), price_cents: 100 + n });
    const withHiLo = async (count: number) => {
      // the order keys are needed for the items' foreign keys: take them in one call
      const orderIds = (await generator.reserve('orders', count)).map(Number);
      const lines = orderIds.flatMap((orderId, k) =>
        Array.from({ length: items }, (_, n) => ({ order_id: orderId, ...line(k * items + n) })),
      );
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('orders')
          .values(orderIds.map((id) => ({ id, customer_id: customerId })))
          .execute();
        // no item keys given: insert() ensures them, the plugin fills them
        await hilo.insert(trx.insertInto('order_items').values(lines));
      });
    };
    const identity = async (count: number) => {
      await db.transaction().execute(async (trx) => {
        const saved = await trx
          .insertInto('identity_orders')
          .values(Array.from({ length: count }, () => ({ customer_id: customerId })))
          .returning('id')
          .execute();
        await trx
          .insertInto('identity_order_items')
          .values(
            saved.flatMap((o, k) =>
              Array.from({ length: items }, (_, n) => ({ order_id: Number(o.id), ...line(k * items + n) })),
            ),
          )
          .returning('id')
          .execute();
      });
    };
    const withUuidv7 = async (count: number) => {
      const orderIds = Array.from({ length: count }, () => uuidv7());
      const lines = orderIds.flatMap((orderId, k) =>
        Array.from({ length: items }, (_, n) => ({ id: uuidv7(), order_id: orderId, ...line(k * items + n) })),
      );
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('uuid_orders')
          .values(orderIds.map((id) => ({ id, customer_id: customerId })))
          .execute();
        await trx.insertInto('uuid_order_items').values(lines).execute();
      });
    };
    const sides = { hilo: withHiLo, identity, uuidv7: withUuidv7 };
    // awaited here, so that the finally below closes the connections only after the last round
    return await benchSides(
      { orders, items, rounds },
      (side, count) => sides[side](count),
      () => counter.count,
    );
  } finally {
    await shop.close();
  }
}
