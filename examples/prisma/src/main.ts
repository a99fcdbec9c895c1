import { createShopSchema } from './schema.js';
import { openShop, runTag } from './shop.js';

/** What {@link run} measured. */
export interface RunResult {
  /** Keys the application knew before anything was written (customer, orders, items). */
  keysBeforeFlush: number;
  /** SQL statements Prisma sent to persist the orders and items with hilo keys. */
  statements: number;
  /** SQL statements for the same orders and items with nested `create` and autoincrement keys. */
  identityStatements: number;
}

class RollBack extends Error {}

const ORDERS = 10;
const ITEMS_PER_ORDER = 5;

/**
 * The shop example: keys known before persisting, relations wired by key, the orders and their items
 * stored with two `createMany` calls, the same graph stored the autoincrement way for comparison, and a
 * rolled-back transaction whose keys are never handed out again.
 */
export async function run(url: string, log: (line: string) => void = console.log): Promise<RunResult> {
  await createShopSchema(url);
  const { prisma, statements, close } = openShop(url);
  try {
    const tag = runTag();

    // Keys come from memory (one round trip per block), so the whole graph is wired before any insert.
    const customerId = await prisma.customer.nextId();
    const orderIds = await prisma.order.reserveIds(ORDERS);
    const itemIds = await prisma.orderItem.reserveIds(ORDERS * ITEMS_PER_ORDER);
    const orders = orderIds.map((id, n) => ({ id, number: `${tag}-${n + 1}`, customerId }));
    const items = itemIds.map((id, n) => ({
      id,
      orderId: orderIds[Math.floor(n / ITEMS_PER_ORDER)]!,
      sku: `SKU-${(n % ITEMS_PER_ORDER) + 1}`,
      quantity: 1 + (n % 3),
      unitPrice: 250 * (1 + (n % 4)),
    }));
    const keysBeforeFlush = 1 + orders.length + items.length;
    log(
      `keys before persisting: customer ${customerId}, orders ${orderIds[0]}…${orderIds.at(-1)}, items ${itemIds[0]}…${itemIds.at(-1)}`,
    );

    // A key is filled in when missing too: this customer row gets the id we drew above only because we pass it.
    await prisma.customer.create({ data: { id: customerId, email: `ada+${tag}@example.com`, name: 'Ada Lovelace' } });

    statements.length = 0;
    await prisma.$transaction([
      prisma.order.createMany({ data: orders }),
      prisma.orderItem.createMany({ data: items }),
    ]);
    const hiloStatements = statements.length;
    log(`${orders.length} orders and ${items.length} items persisted with hilo keys: ${hiloStatements} SQL statements`);

    statements.length = 0;
    for (let n = 0; n < ORDERS; n++) {
      await prisma.identityOrder.create({
        data: {
          number: `${tag}-${n + 1}`,
          customerId,
          items: {
            create: items
              .slice(n * ITEMS_PER_ORDER, (n + 1) * ITEMS_PER_ORDER)
              .map(({ sku, quantity, unitPrice }) => ({ sku, quantity, unitPrice })),
          },
        },
      });
    }
    const identityStatements = statements.length;
    log(`the same graph with nested create and autoincrement keys: ${identityStatements} SQL statements`);

    // Nested creates get their keys too; a rollback throws them away for good: no one gets them again.
    let rolledBack: bigint | undefined;
    try {
      await prisma.$transaction(async (tx) => {
        const order = await tx.order.create({
          data: {
            number: `${tag}-rolled-back`,
            customerId,
            items: { create: [{ sku: 'SKU-1', quantity: 1, unitPrice: 250 }] },
          },
        });
        rolledBack = order.id;
        throw new RollBack();
      });
    } catch (error) {
      if (!(error instanceof RollBack)) throw error;
    }
    const next = await prisma.order.nextId();
    if (rolledBack === undefined || next <= rolledBack)
      throw new Error(`key ${next} came after rolled-back key ${rolledBack}`);
    log(`order ${rolledBack} was rolled back; its key is not reused (next order key: ${next})`);

    return { keysBeforeFlush, statements: hiloStatements, identityStatements };
  } finally {
    await close();
  }
}
