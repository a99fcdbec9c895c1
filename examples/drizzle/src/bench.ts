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
  const { db, hilo, tables, counter } = shop;
  const orderKey = hilo.key('orders');
  const itemKey = hilo.key('order_items');
  try {
    const [customer] = await db
      .insert(tables.customers)
      .values({ name: 'Bench', email: 'bench@example.com' })
      .returning();
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), priceCents: 100 + n });
    const withHiLo = async (count: number) => {
      await Promise.all([hilo.ensure(tables.orders, count), hilo.ensure(tables.items, count * items)]);
      const graph = Array.from({ length: count }, () => ({ id: orderKey(), customerId: customer!.id }));
      const lines = graph.flatMap((o, k) =>
        Array.from({ length: items }, (_, n) => ({ id: itemKey(), orderId: o.id, ...line(k * items + n) })),
      );
      await db.transaction(async (tx) => {
        await tx.insert(tables.orders).values(graph);
        await tx.insert(tables.items).values(lines);
      });
    };
    const identity = async (count: number) => {
      await db.transaction(async (tx) => {
        const saved = await tx
          .insert(tables.identityOrders)
          .values(Array.from({ length: count }, () => ({ customerId: customer!.id })))
          .returning({ id: tables.identityOrders.id });
        await tx
          .insert(tables.identityItems)
          .values(
            saved.flatMap((o, k) =>
              Array.from({ length: items }, (_, n) => ({ orderId: o.id, ...line(k * items + n) })),
            ),
          )
          .returning({ id: tables.identityItems.id });
      });
    };
    const withUuidv7 = async (count: number) => {
      const graph = Array.from({ length: count }, () => ({ id: uuidv7(), customerId: customer!.id }));
      const lines = graph.flatMap((o, k) =>
        Array.from({ length: items }, (_, n) => ({ id: uuidv7(), orderId: o.id, ...line(k * items + n) })),
      );
      await db.transaction(async (tx) => {
        await tx.insert(tables.uuidOrders).values(graph);
        await tx.insert(tables.uuidItems).values(lines);
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
