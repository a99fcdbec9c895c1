/**
 * The worker of the adapter conformance suite (@hilo/testing): its own ORM with the HiLo extension on a
 * prepared database; persists one customer and `orders` orders in flushes of 5, then prints the orders'
 * keys as JSON. argv[2]: {"kind":"postgres"|"mysql"|"sqlite","url":…,"orders":n[,"mikroOrm":version]}
 */
import { Customer, Order, defineEntities } from '../fixtures/define-entities.js';
import { checkWorkerVersion } from './compat.js';
import { conformanceHiLoOptions } from './conformance-harness.js';
import { openOrm, type Kind } from './orm.js';

const { kind, url, orders, mikroOrm } = JSON.parse(process.argv[2]!) as {
  kind: Kind;
  url: string;
  orders: number;
  mikroOrm?: string;
};
checkWorkerVersion(mikroOrm);
const { orm } = await openOrm(kind, url, defineEntities, conformanceHiLoOptions);
const keys: number[] = [];
try {
  const em = orm.em.fork();
  const customer = em.create(Customer, { name: `worker ${process.pid}`, orders: [] });
  await em.flush();
  for (let round = 0; keys.length < orders; round++) {
    const batch = Array.from({ length: Math.min(5, orders - keys.length) }, (_, i) =>
      em.create(Order, { customer, reference: `w${process.pid}-${round}-${i}`, items: [] }),
    );
    await em.flush();
    keys.push(...batch.map((o) => o.id));
  }
} finally {
  await orm.close();
}
process.stdout.write(JSON.stringify(keys));
