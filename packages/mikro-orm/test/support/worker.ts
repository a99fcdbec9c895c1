/**
 * One "process" of the cross-process test: opens its own ORM with the HiLo extension and persists
 * `count` customers (each with one order) in `rounds` flushes, then prints their keys as JSON.
 * Run with tsx: `tsx worker.ts <postgres|mysql> <url> <count> <rounds>`.
 */
import { Customer, defineEntities } from '../fixtures/define-entities.js';
import { checkWorkerVersion } from './compat.js';
import { openOrm, type Kind } from './orm.js';

checkWorkerVersion();
const [kind, url, count, rounds] = process.argv.slice(2);
const { orm } = await openOrm(kind as Kind, url!, defineEntities, { blockSize: 7, adaptive: false });
const keys: number[] = [];
const perRound = Math.ceil(Number(count) / Number(rounds));
for (let round = 0; keys.length < Number(count); round++) {
  const em = orm.em.fork();
  const batch = Array.from({ length: Math.min(perRound, Number(count) - keys.length) }, (_, i) =>
    em.create(Customer, {
      name: `w${process.pid}-${round}-${i}`,
      orders: [{ reference: `r${round}-${i}`, items: [] }],
    }),
  );
  await em.flush();
  keys.push(...batch.map((c) => c.id));
}
await orm.close();
process.stdout.write(JSON.stringify(keys));
