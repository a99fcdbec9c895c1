// The worker of the adapter conformance suite (@hilo/testing): its own Kysely and hilo on a prepared
// database; inserts one customer and `orders` orders in batches of 5 without keys — hilo's plugin fills
// them — and prints the orders' keys as JSON. argv[2]: {"kind":…,"url":…,"orders":n[,"kysely":version]}
import { Kysely } from 'kysely';
import { loadedKyselyVersion } from '../support/kysely-version.js';
import { openShop, type Kind } from '../support/shop.js';

const { kind, url, orders, kysely, leaveHiloOpen } = JSON.parse(process.argv[2]!) as {
  kind: Kind;
  url: string;
  orders: number;
  kysely?: string;
  /** Destroy Kysely only: the process must still exit by itself. */
  leaveHiloOpen?: boolean;
};
// Run by the packages/kysely-compat Jest project: its tsconfig maps `kysely` to that release; prove it took.
if (kysely !== undefined && (await loadedKyselyVersion(Kysely)) !== kysely) {
  throw new Error(`the worker loaded Kysely ${await loadedKyselyVersion(Kysely)}, expected ${kysely}`);
}
const { db, hilo, close, closeOrm } = await openShop(kind, url);
const keys: number[] = [];
try {
  const customerId = (await hilo.nextId('customers')) as number;
  await db
    .insertInto('customers')
    .values({ id: customerId, name: `worker ${process.pid}` })
    .execute();
  for (let batch = 0; keys.length < orders; batch++) {
    const size = Math.min(5, orders - keys.length);
    await hilo.insert(
      db.insertInto('orders').values(Array.from({ length: size }, () => ({ customer_id: customerId, total: batch }))),
    );
    const stored = await db
      .selectFrom('orders')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('total', '=', batch)
      .execute();
    keys.push(...stored.map((r) => Number(r.id)));
  }
} finally {
  await (leaveHiloOpen === true ? closeOrm() : close());
}
process.stdout.write(JSON.stringify(keys));
