/**
 * The side-by-side loop of the examples' graph benchmarks (examples/NAME/src/bench.ts): each side stores the
 * same graph its own way (hilo keys, the ORM's identity path, UUIDv7 keys). The sides of a round run back to
 * back, so `pnpm bench` takes one ratio per round (bench/src/spread.ts); the rounds cycle through every order of
 * the three sides, so that each side runs before and after each other one equally often, and garbage is
 * collected before each timed run (when Node runs with `--expose-gc`, as `pnpm bench` starts it), so that no
 * side pays for another's garbage.
 */

/** One timed run of one side. */
export interface SideRun {
  /** Milliseconds the run took. */
  ms: number;
  /** Statements it sent (BEGIN and COMMIT included). */
  statements: number;
}

/** What `pnpm bench` reads from an example's `benchGraph()`: medians over the timed rounds. */
export interface GraphBenchResult {
  orders: number;
  itemsPerOrder: number;
  rounds: number;
  hiloMs: number;
  identityMs: number;
  uuidv7Ms: number;
  /** `identityMs / hiloMs`. */
  speedup: number;
  hiloStatements: number;
  identityStatements: number;
  uuidv7Statements: number;
  /** The identity and UUIDv7 graphs again on a connection without hilo, where hilo changes the ORM for the whole connection (TypeORM). */
  stock?: StockSides;
  /** Each side's milliseconds per timed round; index `r` of every side is round `r`, its sides run back to back. */
  perRound: PerRound;
}

/** Milliseconds per timed round and side; a side with fewer rounds ran in the first rounds only. */
export interface PerRound {
  hilo: number[];
  identity: number[];
  uuidv7: number[];
}

/**
 * The same graphs stored by the ORM as it ships, on a DataSource hilo is not installed on: what an application
 * runs today without hilo. Medians of the rounds given.
 */
export interface StockSides {
  identityMs: number;
  uuidv7Ms: number;
  identityStatements: number;
  uuidv7Statements: number;
  identityRounds: number;
  uuidv7Rounds: number;
  /** Milliseconds of each round of each stock side (run after the paired rounds, not between them). */
  identityRunsMs?: number[];
  uuidv7RunsMs?: number[];
}

/**
 * Times `rounds` runs of `store(orders)` after no warm-up (the other sides warmed the ORM's code up) and
 * returns the median time and statement count.
 */
export async function timeSide(
  rounds: number,
  orders: number,
  store: (orders: number) => Promise<unknown>,
  statements: () => number,
): Promise<SideRun & { runsMs: number[] }> {
  const runs: SideRun[] = [];
  for (let r = 0; r < rounds; r++) runs.push(await timeRun(() => store(orders), statements));
  return {
    ms: median(runs.map((x) => x.ms)),
    statements: median(runs.map((x) => x.statements)),
    runsMs: runs.map((x) => x.ms),
  };
}

/** `global.gc()` when Node runs with `--expose-gc`, so that a timed run does not pay for earlier garbage. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** One timed run of `store`, with the statements it sent (read from the counter `statements`). */
async function timeRun(store: () => Promise<unknown>, statements: () => number): Promise<SideRun> {
  collectGarbage();
  const before = statements();
  const start = performance.now();
  await store();
  return { ms: performance.now() - start, statements: statements() - before };
}

/** The sides every graph benchmark compares, in the order of the first round. */
export const GRAPH_SIDES = ['hilo', 'identity', 'uuidv7'] as const;
export type GraphSide = (typeof GRAPH_SIDES)[number];

/**
 * The order of the sides in round `round`: the six orders of three sides in turn, so that over every six rounds
 * each side runs first, second and last twice, and before and after each other side three times.
 */
export function sideOrder(round: number): readonly GraphSide[] {
  return SIDE_ORDERS[round % SIDE_ORDERS.length]!;
}
const SIDE_ORDERS: readonly (readonly GraphSide[])[] = [
  ['hilo', 'identity', 'uuidv7'],
  ['uuidv7', 'identity', 'hilo'],
  ['identity', 'uuidv7', 'hilo'],
  ['hilo', 'uuidv7', 'identity'],
  ['uuidv7', 'hilo', 'identity'],
  ['identity', 'hilo', 'uuidv7'],
];

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Warms every side up (two graphs of a quarter of `orders`), then runs `rounds` rounds of a graph of `orders`
 * orders on every side, in the orders of {@link sideOrder}, and returns each side's median time and statement
 * count, and its time per round. `store(side, orders)` stores one graph; `statements()` reads a counter of statements sent.
 */
export async function benchSides(
  { orders, items, rounds }: { orders: number; items: number; rounds: number },
  store: (side: GraphSide, orders: number) => Promise<unknown>,
  statements: () => number,
): Promise<GraphBenchResult> {
  for (let w = 0; w < 2; w++) for (const side of GRAPH_SIDES) await store(side, Math.ceil(orders / 4));
  const runs: Record<GraphSide, SideRun[]> = { hilo: [], identity: [], uuidv7: [] };
  for (let r = 0; r < rounds; r++) {
    for (const side of sideOrder(r)) runs[side].push(await timeRun(() => store(side, orders), statements));
  }
  const ms = (side: GraphSide) => median(runs[side].map((x) => x.ms));
  const count = (side: GraphSide) => median(runs[side].map((x) => x.statements));
  return {
    orders,
    itemsPerOrder: items,
    rounds,
    hiloMs: ms('hilo'),
    identityMs: ms('identity'),
    uuidv7Ms: ms('uuidv7'),
    speedup: ms('identity') / ms('hilo'),
    hiloStatements: count('hilo'),
    identityStatements: count('identity'),
    uuidv7Statements: count('uuidv7'),
    perRound: {
      hilo: runs.hilo.map((x) => x.ms),
      identity: runs.identity.map((x) => x.ms),
      uuidv7: runs.uuidv7.map((x) => x.ms),
    },
  };
}
