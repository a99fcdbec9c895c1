import { openShop } from './main.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Inserts `orders` orders of `items` items each in one transaction, with hilo keys (keys drawn in memory,
 * then one multi-row INSERT per table) and with identity keys (orders `RETURNING id`, then the items
 * `RETURNING id`), alternating for `rounds` rounds after a warm-up. Both sides end holding every key they
 * stored, as the ORMs' identity paths do; the hilo side includes its reservations.
 */
export async function benchGraph(url: string, { orders, items, rounds = 7 }: { orders: number; items: number; rounds?: number }) {
  const shop = await openShop(url);
  const { db, hilo, counter } = shop;
  const generator = await hilo.generator();
  try {
    const [customer] = await db.insertInto('customers').values({ name: 'Bench', email: 'bench@example.com' }).returning('id').execute();
    const customerId = Number(customer!.id);
    const line = (n: number) => ({ sku: `SKU-${n % 7}`, quantity: 1 + (n % 3), price_cents: 100 + n });
    const withHiLo = async (count: number) => {
      // the order keys are needed for the items' foreign keys: take them in one call
      const orderIds = (await generator.reserve('orders', count)).map(Number);
      const lines = orderIds.flatMap((orderId, k) => Array.from({ length: items }, (_, n) => ({ order_id: orderId, ...line(k * items + n) })));
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('orders').values(orderIds.map((id) => ({ id, customer_id: customerId }))).execute();
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
          .values(saved.flatMap((o, k) => Array.from({ length: items }, (_, n) => ({ order_id: Number(o.id), ...line(k * items + n) }))))
          .returning('id')
          .execute();
      });
    };
    const time = async (fn: () => Promise<void>) => {
      const before = counter.count;
      const start = performance.now();
      await fn();
      return { ms: performance.now() - start, statements: counter.count - before };
    };
    for (let w = 0; w < 2; w++) {
      await withHiLo(Math.ceil(orders / 4));
      await identity(Math.ceil(orders / 4));
    }
    const h: { ms: number; statements: number }[] = [];
    const i: { ms: number; statements: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        h.push(await time(() => withHiLo(orders)));
        i.push(await time(() => identity(orders)));
      } else {
        i.push(await time(() => identity(orders)));
        h.push(await time(() => withHiLo(orders)));
      }
    }
    const hiloMs = median(h.map((x) => x.ms));
    const identityMs = median(i.map((x) => x.ms));
    return {
      orders,
      itemsPerOrder: items,
      rounds,
      hiloMs,
      identityMs,
      speedup: identityMs / hiloMs,
      hiloStatements: median(h.map((x) => x.statements)),
      identityStatements: median(i.map((x) => x.statements)),
    };
  } finally {
    await shop.close();
  }
}
