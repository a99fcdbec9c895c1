import { PrismaPg } from '@prisma/adapter-pg';
import { hilo } from 'hilo-prisma';
import { PrismaClient } from './generated/prisma/client.js';
import { hiloMetadata } from './generated/prisma/hilo.js';
import { createShopSchema } from './schema.js';

export async function quickStart(url: string): Promise<bigint[]> {
  await createShopSchema(url); // the tables and hilo's safety net (no migrate in this example)
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }).$extends(
    hilo({ metadata: hiloMetadata, url }),
  );
  try {
    // Start-up: connects and checks each key's hi store against the rows (a store set back by a restore refuses here).
    await prisma.$connect();
    const run = Date.now().toString(36);

    // Keys before anything is written: relations are wired by key.
    const customerId = await prisma.customer.nextId(); // bigint, as the schema says
    const orderIds = await prisma.order.reserveIds(10);
    const itemIds = await prisma.orderItem.reserveIds(50);
    const orders = orderIds.map((id, n) => ({ id, number: `${run}-${n + 1}`, customerId }));
    const items = itemIds.map((id, n) => ({
      id,
      orderId: orderIds[Math.floor(n / 5)]!,
      sku: `SKU-${n % 5}`,
      quantity: 1,
      unitPrice: 250,
    }));

    await prisma.customer.create({ data: { id: customerId, email: `ada+${run}@example.com`, name: 'Ada' } });
    // The whole graph in two INSERT statements.
    await prisma.$transaction([
      prisma.order.createMany({ data: orders }),
      prisma.orderItem.createMany({ data: items }),
    ]);

    // Or let the extension fill the keys, at any depth.
    const order = await prisma.order.create({
      data: { number: `${run}-11`, customerId, items: { create: [{ sku: 'SKU-1', quantity: 2, unitPrice: 250 }] } },
      include: { items: true },
    });

    // A rolled-back transaction's keys are never handed out again.
    await prisma
      .$transaction(async (tx) => {
        await tx.order.create({ data: { number: `${run}-12`, customerId } });
        throw new Error('changed my mind');
      })
      .catch(() => undefined);

    return [customerId, ...orderIds, order.id, order.items[0]!.id];
  } finally {
    await prisma.$hilo.close(); // hilo's own connection pool
    await prisma.$disconnect();
  }
}
