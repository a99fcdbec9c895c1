/**
 * Child process for the cross-process test: one "application instance" with its own hilo extension on
 * the test database. Inserts `rounds` batches of orders without keys (the extension fills them) and draws
 * keys with nextId(); prints every key it used as JSON on stdout.
 * Usage: draw-keys.ts <postgres|mysql> <url> <label> <rounds> <sequence|table>
 */
import { hilo } from '../../src/index.js';
import { createBaseClient, metadataFor, type Kind } from '../fixtures.js';
import { checkWorkerVersion } from '../support/compat.js';

checkWorkerVersion();
const [kind, url, label, roundsArg, source] = process.argv.slice(2) as [
  Kind,
  string,
  string,
  string,
  'sequence' | 'table',
];
const { prisma: base } = createBaseClient(kind, url);
// small, fixed blocks so that the processes' reservations interleave (a sequence keeps the INCREMENT BY it was created with)
const prisma = base.$extends(
  hilo({
    metadata: metadataFor(kind),
    url,
    source,
    blockSize: source === 'table' ? 7 : 100,
    adaptive: false,
    prefetchAt: false,
  }),
);
const keys: string[] = [];
try {
  const customer = await prisma.customer.create({ data: { name: label } });
  keys.push(`customer:${customer.id}`);
  for (let round = 0; round < Number(roundsArg); round++) {
    const references = Array.from({ length: 5 }, (_, i) => `${label}-${round}-${i}`);
    await prisma.order.createMany({ data: references.map((reference) => ({ reference, customerId: customer.id })) });
    keys.push(`order:${await prisma.order.nextId()}`);
  }
  const rows = await prisma.order.findMany({ where: { customerId: customer.id }, select: { id: true } });
  for (const row of rows) keys.push(`order:${row.id}`);
  process.stdout.write(JSON.stringify(keys));
} finally {
  await prisma.$hilo.close();
  await base.$disconnect();
}
