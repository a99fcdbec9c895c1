import type { Spread } from './spread.js';

/** One benchmark figure as written to results/latest.json. */
export interface Result {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** With `spread`: the median of the per-round ratios (see bench/README.md). */
  readonly ratio?: number;
  /** How the per-round ratios spread around `ratio`; every ratio measured in paired rounds has one. */
  readonly spread?: Spread;
  /** The ratio the issue asks for; the chart marks it and colours the bar by it. */
  readonly target?: number;
  readonly note?: string;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One measuring window: runs the synchronous `batch` (which performs `perBatch` operations) repeatedly for about
 * `ms` of batch time and returns operations per second. Between batches it yields to the event loop, as an
 * application does between requests (that is when background reservations complete); only time spent inside
 * batches is counted. Warm up first with {@link warmUp}; pair windows with `pairedRounds` (spread.ts).
 */
export async function opsWindowSync(batch: () => void, perBatch: number, ms: number): Promise<number> {
  let n = 0;
  let spent = 0;
  while (spent < ms) {
    const t = performance.now();
    batch();
    spent += performance.now() - t;
    n += perBatch;
    await yieldToEventLoop();
  }
  return (n / spent) * 1000;
}

/** The async twin of {@link opsWindowSync}: wall time of awaited batches. */
export async function opsWindow(batch: () => Promise<void>, perBatch: number, ms: number): Promise<number> {
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    await batch();
    n += perBatch;
    now = performance.now();
  }
  return (n / (now - start)) * 1000;
}

/** Runs `batch` for `ms` of wall time (yielding between batches), so that the JIT has compiled it before timing. */
export async function warmUp(batch: () => unknown, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    await batch();
    await yieldToEventLoop();
  }
}

/** The p-th percentile (0–100) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Keeps the JIT from removing a loop whose result is unused. */
export let sink = 0;
export function consume(value: number | bigint | string): void {
  sink ^= typeof value === 'number' ? value : value.toString().length;
}
