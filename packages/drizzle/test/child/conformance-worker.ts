// The worker of the adapter conformance suite (@hilo/testing): its own Drizzle database and hilo on a
// prepared database; inserts one customer and `orders` orders in batches of 5, their keys left to hilo's
// $defaultFn, and prints the orders' keys as JSON. argv[2]: {"kind":…,"url":…,"orders":n[,"drizzle":version]}
import { and, eq } from 'drizzle-orm';
import { npmVersion } from 'drizzle-orm/version';
import { openShop, type Kind } from '../support/shop.js';

const { kind, url, orders, drizzle, leaveHiloOpen } = JSON.parse(process.argv[2]!) as {
  kind: Kind;
  url: string;
  orders: number;
  drizzle?: string;
  /** End Drizzle's driver only: the process must still exit by itself. */
  leaveHiloOpen?: boolean;
};
// Run by a packages/drizzle-compat Jest project: its tsconfig maps `drizzle-orm` to that release; prove it took.
if (drizzle !== undefined && npmVersion !== drizzle)
  throw new Error(`the worker loaded drizzle-orm ${npmVersion}, expected ${drizzle}`);
const shop = await openShop(kind, url);
const { db, hilo, tables } = shop;
const keys: number[] = [];
try {
  const customerId = (await hilo.nextId(tables.customers)) as number;
  await db.insert(tables.customers).values({ id: customerId, name: `worker ${process.pid}` });
  for (let batch = 0; keys.length < orders; batch++) {
    const size = Math.min(5, orders - keys.length);
    await hilo.ensure(tables.orders, size);
    // no id given: Drizzle calls hilo's $defaultFn for each row
    await db.insert(tables.orders).values(Array.from({ length: size }, () => ({ customerId, total: batch })));
    const stored = await db
      .select({ id: tables.orders.id })
      .from(tables.orders)
      .where(and(eq(tables.orders.total, batch), eq(tables.orders.customerId, customerId)));
    keys.push(...stored.map((r: { id: number }) => Number(r.id)));
  }
} finally {
  await (leaveHiloOpen === true ? shop.closeOrm() : shop.close());
}
process.stdout.write(JSON.stringify(keys));
