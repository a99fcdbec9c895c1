/**
 * The worker of the adapter conformance suite (@hilo/testing): its own Prisma client with the hilo
 * extension on a prepared database; creates one customer and `orders` orders (5 at a time, keys filled by
 * the extension), then prints the orders' keys as JSON. argv[2]: {"kind":"postgres"|"mysql","url":…,"orders":n[,"prisma":version]}
 */
import { conformanceClient } from '../support/conformance-harness.js';
import type { Kind } from '../fixtures.js';
import { checkWorkerVersion } from '../support/compat.js';

const {
  kind,
  url,
  orders,
  prisma: expected,
  leaveHiloOpen,
} = JSON.parse(process.argv[2]!) as {
  kind: Kind;
  url: string;
  orders: number;
  prisma?: string;
  leaveHiloOpen?: boolean;
};
checkWorkerVersion(expected);
const { base, prisma } = conformanceClient(kind, url);
const keys: string[] = [];
try {
  const customer = await prisma.customer.create({ data: { name: `worker ${process.pid}` } });
  for (let round = 0; keys.length < orders; round++) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(5, orders - keys.length) }, (_, i) =>
        prisma.order.create({ data: { reference: `w${process.pid}-${round}-${i}`, customerId: customer.id } }),
      ),
    );
    keys.push(...batch.map((o) => String(o.id)));
  }
} finally {
  // with leaveHiloOpen, only Prisma disconnects: the process must still exit by itself
  if (leaveHiloOpen !== true) await prisma.$hilo.close();
  await base.$disconnect();
}
process.stdout.write(JSON.stringify(keys));
