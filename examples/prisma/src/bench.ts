import { createShopSchema } from './schema.js';
import { v7 as uuidv7 } from 'uuid';
import { openShop, runTag } from './shop.js';

/** How {@link benchGraph} runs. */
export interface GraphBenchOptions {
  /** Orders per round. */
  orders: number;
  /** Items per order. */
  items: number;
  /**
   * Timed rounds of the hilo and UUIDv7 sides after the warm-up rounds; each side's time is the median over them.
   * @default 10
   */
  rounds?: number;
  /**
   * Timed rounds of the identity side (a statement per order, five times as long as the others), run in the
   * first rounds, next to the hilo side of the same round.
   * @default 3, or `rounds` when fewer
   */
  identityRounds?: number;
}

/** What {@link benchGraph} measured. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  /** Median milliseconds to reserve the keys and store the graph with two `createMany` calls. */
  hiloMs: number;
  /** Median milliseconds to store the same graph with one nested `create` per order and autoincrement keys. */
  identityMs: number;
  /**
   * Median milliseconds to store the same graph keyed by UUIDv7s the application generates, with the same
   * two `createMany` calls in one `$transaction`, on the client without hilo.
   */
  uuidv7Ms: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  /** SQL statements one hilo round sends (the same in every round). */
  hiloStatements: number;
  /** SQL statements one nested-create round sends. */
  identityStatements: number;
  /** SQL statements one UUIDv7 round sends. */
  uuidv7Statements: number;
  /** The timed rounds (of the identity side: `perRound.identity.length`). */
  rounds: number;
  /**
   * Each side's milliseconds per timed round: index `r` of every side is round `r`, whose sides ran back to back
   * (`pnpm bench` takes one ratio per round from them). The identity side ran in the first rounds only.
   */
  perRound: { hilo: number[]; identity: number[]; uuidv7: number[] };
  /**
   * The warm-up round, timed too: it includes Prisma compiling each side's query plan. Prisma caches a plan
   * per query shape, and a `createMany` of n rows has its own shape per n, so a process pays this once per
   * batch size; nested `create` pays it once for every order.
   */
  firstRound: { hiloMs: number; identityMs: number; uuidv7Ms: number };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `global.gc()` when Node runs with `--expose-gc` (`pnpm bench` starts it so), so a timed run starts without garbage. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * The sides of timed round `round`: hilo and UUIDv7 back to back, hilo first in even rounds and second in odd
 * ones; in the first `identityRounds` rounds the identity side too, first, between or last in turn.
 */
function roundOrder(round: number, identityRounds: number): ('hilo' | 'identity' | 'uuidv7')[] {
  const order: ('hilo' | 'identity' | 'uuidv7')[] = round % 2 === 0 ? ['hilo', 'uuidv7'] : ['uuidv7', 'hilo'];
  if (round < identityRounds) order.splice(round % 3, 0, 'identity');
  return order;
}

/**
 * Stores `orders` orders of `items` items three ways, in the same process against the same database: with
 * hilo keys (keys reserved in bulk, then two `createMany` in one `$transaction`), the usual way (a nested
 * `create` per order, keys from autoincrement, on the client without hilo), and with UUIDv7 keys generated
 * in the application (the same two `createMany`, on the client without hilo). A warm-up round of each comes
 * first (JIT, connection pools, Prisma's query-plan cache — see {@link GraphBenchResult.firstRound}), and a
 * second one of the hilo and UUIDv7 sides; in each timed round the sides then run back to back, hilo and UUIDv7
 * alternating which goes first, so that a change in machine load falls on both.
 */
export async function benchGraph(
  url: string,
  { orders, items, rounds = 10, identityRounds = Math.min(rounds, 3) }: GraphBenchOptions,
): Promise<GraphBenchResult> {
  if (!Number.isSafeInteger(rounds) || rounds < 1)
    throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  if (!Number.isSafeInteger(identityRounds) || identityRounds < 1 || identityRounds > rounds)
    throw new RangeError(`identityRounds must be an integer from 1 to rounds (${rounds}), got ${identityRounds}`);
  await createShopSchema(url);
  // Prisma gives up on a transaction after 5 s; on a busy machine one round's transaction can take longer
  const shop = openShop(url, { transactionTimeoutMs: 120_000 });
  const { prisma, base, statements } = shop;
  try {
    const tag = runTag();
    const customerId = await prisma.customer.nextId();
    await prisma.customer.create({ data: { id: customerId, email: `bench+${tag}@example.com`, name: 'Bench' } });
    await prisma.$hilo.warm();
    const line = (n: number) => ({ sku: `SKU-${n % items}`, quantity: 1 + (n % 3), unitPrice: 100 + n });

    const withHilo = async (round: number): Promise<void> => {
      const orderIds = await prisma.order.reserveIds(orders);
      const itemIds = await prisma.orderItem.reserveIds(orders * items);
      await prisma.$transaction([
        prisma.order.createMany({
          data: orderIds.map((id, n) => ({ id, number: `${tag}-${round}-h${n}`, customerId })),
        }),
        prisma.orderItem.createMany({
          data: itemIds.map((id, n) => ({ id, orderId: orderIds[Math.floor(n / items)]!, ...line(n) })),
        }),
      ]);
    };
    const withIdentity = async (round: number): Promise<void> => {
      for (let o = 0; o < orders; o++) {
        // the client without the extension: what a Prisma application does today
        await base.identityOrder.create({
          data: {
            number: `${tag}-${round}-i${o}`,
            customerId,
            items: { create: Array.from({ length: items }, (_, n) => line(o * items + n)) },
          },
        });
      }
    };
    const withUuidv7 = async (round: number): Promise<void> => {
      const orderIds = Array.from({ length: orders }, () => uuidv7());
      await base.$transaction([
        base.uuidOrder.createMany({
          data: orderIds.map((id, n) => ({ id, number: `${tag}-${round}-u${n}`, customerId })),
        }),
        base.uuidOrderItem.createMany({
          data: Array.from({ length: orders * items }, (_, n) => ({
            id: uuidv7(),
            orderId: orderIds[Math.floor(n / items)]!,
            ...line(n),
          })),
        }),
      ]);
    };
    const timed = async (work: (round: number) => Promise<void>, round: number) => {
      collectGarbage();
      statements.length = 0;
      const start = performance.now();
      await work(round);
      return { ms: performance.now() - start, statements: statements.length };
    };

    const work = { hilo: withHilo, identity: withIdentity, uuidv7: withUuidv7 };
    type Side = keyof typeof work;
    const first = {
      hilo: await timed(withHilo, 0),
      identity: await timed(withIdentity, 0),
      uuidv7: await timed(withUuidv7, 0),
    };
    // a second warm-up of the two short sides: the first round of a side still runs partly unoptimised code
    await withUuidv7(-1);
    await withHilo(-1);
    const times: Record<Side, number[]> = { hilo: [], identity: [], uuidv7: [] };
    const counts: Record<Side, number> = {
      hilo: first.hilo.statements,
      identity: first.identity.statements,
      uuidv7: first.uuidv7.statements,
    };
    for (let round = 1; round <= rounds; round++) {
      for (const side of roundOrder(round - 1, identityRounds)) {
        const r = await timed(work[side], round);
        times[side].push(r.ms);
        counts[side] = r.statements;
      }
    }
    const hiloMs = median(times.hilo);
    const identityMs = median(times.identity);
    return {
      orders,
      itemsPerOrder: items,
      hiloMs,
      identityMs,
      uuidv7Ms: median(times.uuidv7),
      speedup: identityMs / hiloMs,
      hiloStatements: counts.hilo,
      identityStatements: counts.identity,
      uuidv7Statements: counts.uuidv7,
      rounds,
      perRound: times,
      firstRound: { hiloMs: first.hilo.ms, identityMs: first.identity.ms, uuidv7Ms: first.uuidv7.ms },
    };
  } finally {
    await shop.close();
  }
}

/** The one JSON line `--bench --json` prints, which the repository's `pnpm bench` records. */
export function benchJson(r: GraphBenchResult): string {
  const ms = (value: number) => Math.round(value * 10) / 10;
  return JSON.stringify({
    orders: r.orders,
    itemsPerOrder: r.itemsPerOrder,
    hiloMs: ms(r.hiloMs),
    identityMs: ms(r.identityMs),
    uuidv7Ms: ms(r.uuidv7Ms),
    hiloStatements: r.hiloStatements,
    identityStatements: r.identityStatements,
    uuidv7Statements: r.uuidv7Statements,
  });
}

/** The human-readable report of `--bench`. */
export function benchText(r: GraphBenchResult): string {
  const n = (value: number) => value.toLocaleString('en-US');
  return [
    `${n(r.orders)} orders × ${n(r.itemsPerOrder)} items; median of ${r.rounds} round${r.rounds === 1 ? '' : 's'} ` +
      `(nested create: ${r.perRound.identity.length}) after warm-up rounds`,
    `hilo + two createMany: ${r.hiloMs.toFixed(0)} ms, ${r.hiloStatements} statements`,
    `nested create + autoincrement: ${r.identityMs.toFixed(0)} ms, ${r.identityStatements} statements`,
    `UUIDv7 + two createMany: ${r.uuidv7Ms.toFixed(0)} ms, ${r.uuidv7Statements} statements`,
    `speed-up: ${r.speedup.toFixed(1)}×`,
    `warm-up round (includes Prisma compiling the plan of a createMany of this size, once per process): ` +
      `hilo ${r.firstRound.hiloMs.toFixed(0)} ms, nested create ${r.firstRound.identityMs.toFixed(0)} ms, ` +
      `${(r.firstRound.identityMs / r.firstRound.hiloMs).toFixed(1)}×`,
  ].join('\n');
}
