import { v7 as uuidv7 } from 'uuid';
import { openShop } from './main.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Inserts `orders` orders of `items` items each in one transaction, with hilo keys (keys drawn in memory,
 * then one multi-row INSERT per table), with identity keys (orders `RETURNING id`, then the items
 * `RETURNING id`) and with UUIDv7 keys generated in the application (one multi-row INSERT per table),
 * rotating which goes first for `rounds` rounds after a warm-up. Every side ends holding every key it
 * stored, as the ORMs' identity paths do; the hilo side includes its reservations, the UUIDv7 side the time
 * generating its keys takes.
 */
export async function benchGraph(url: string, { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number }) {
  const shop = await openShop(url);
  const { db, hilo, tables, counter } = shop;
  const orderKey = hilo.key('orders');
  const itemKey = hilo.key('order_items');
  try {
    const [customer] = await db.insert(tables.customers).values({ name: 'Bench', email: 'bench@example.com' }).returning();
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), priceCents: 100 + n });
    const withHiLo = async (count: number) => {
      await Promise.all([hilo.ensure(tables.orders, count), hilo.ensure(tables.items, count * items)]);
      const graph = Array.from({ length: count }, () => ({ id: orderKey(), customerId: customer!.id }));
      const lines = graph.flatMap((o, k) => Array.from({ length: items }, (_, n) => ({ id: itemKey(), orderId: o.id, ...line(k * items + n) })));
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
        await tx.insert(tables.identityItems).values(saved.flatMap((o, k) => Array.from({ length: items }, (_, n) => ({ orderId: o.id, ...line(k * items + n) }))))
          .returning({ id: tables.identityItems.id });
      });
    };
    const withUuidv7 = async (count: number) => {
      const graph = Array.from({ length: count }, () => ({ id: uuidv7(), customerId: customer!.id }));
      const lines = graph.flatMap((o, k) => Array.from({ length: items }, (_, n) => ({ id: uuidv7(), orderId: o.id, ...line(k * items + n) })));
      await db.transaction(async (tx) => {
        await tx.insert(tables.uuidOrders).values(graph);
        await tx.insert(tables.uuidItems).values(lines);
      });
    };
    const sides = { hilo: withHiLo, identity, uuidv7: withUuidv7 };
    type Side = keyof typeof sides;
    const time = async (side: Side) => {
      const before = counter.count;
      const start = performance.now();
      await sides[side](orders);
      return { ms: performance.now() - start, statements: counter.count - before };
    };
    const order: Side[] = ['hilo', 'identity', 'uuidv7'];
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
    await shop.close();
  }
}
