import { createShopSchema } from './schema.js';
import { openShop, runTag } from './shop.js';

/** What {@link benchGraph} measured. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  /** Milliseconds to reserve the keys and store the graph with two `createMany` calls. */
  hiloMs: number;
  /** Milliseconds to store the same graph with one nested `create` per order and autoincrement keys. */
  identityMs: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  hiloStatements: number;
  identityStatements: number;
}

/**
 * Stores `orders` orders of `items` items twice in the same run: with hilo keys (keys reserved in bulk,
 * then two `createMany`) and the usual way (nested `create` per order, keys from autoincrement).
 */
export async function benchGraph(url: string, { orders, items }: { orders: number; items: number }): Promise<GraphBenchResult> {
  await createShopSchema(url);
  const shop = openShop(url);
  const { prisma, statements } = shop;
  try {
    const tag = runTag();
    const customerId = await prisma.customer.nextId();
    await prisma.customer.create({ data: { id: customerId, email: `bench+${tag}@example.com`, name: 'Bench' } });
    await prisma.$hilo.warm();
    const line = (n: number) => ({ sku: `SKU-${n % items}`, quantity: 1 + (n % 3), unitPrice: 100 + n });

    statements.length = 0;
    const hiloStart = performance.now();
    const orderIds = await prisma.order.reserveIds(orders);
    const itemIds = await prisma.orderItem.reserveIds(orders * items);
    await prisma.$transaction([
      prisma.order.createMany({ data: orderIds.map((id, n) => ({ id, number: `${tag}-h${n}`, customerId })) }),
      prisma.orderItem.createMany({ data: itemIds.map((id, n) => ({ id, orderId: orderIds[Math.floor(n / items)]!, ...line(n) })) }),
    ]);
    const hiloMs = performance.now() - hiloStart;
    const hiloStatements = statements.length;

    statements.length = 0;
    const identityStart = performance.now();
    for (let o = 0; o < orders; o++) {
      await prisma.identityOrder.create({
        data: { number: `${tag}-i${o}`, items: { create: Array.from({ length: items }, (_, n) => line(o * items + n)) } },
      });
    }
    const identityMs = performance.now() - identityStart;
    const identityStatements = statements.length;

    return { orders, itemsPerOrder: items, hiloMs, identityMs, speedup: identityMs / hiloMs, hiloStatements, identityStatements };
  } finally {
    await shop.close();
  }
}
