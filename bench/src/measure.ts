import { median, type Spread } from './spread.js';

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
 * `ms` of batch time and returns operations per second at the median batch time. Between batches it yields to the
 * event loop, as an application does between requests (that is when background reservations complete); only time
 * spent inside batches is counted. The median rather than the total: a batch takes microseconds to a millisecond, so
 * on a busy machine the few batches the scheduler preempts are the slow tail, and the median leaves them out where a
 * total would charge them to whichever side they hit. Warm up first with {@link warmUp}; pair windows with
 * `pairedRounds` (spread.ts).
 */
export async function opsWindowSync(batch: () => void, perBatch: number, ms: number): Promise<number> {
  const times: number[] = [];
  let spent = 0;
  while (spent < ms) {
    const t = performance.now();
    batch();
    const took = performance.now() - t;
    spent += took;
    times.push(took);
    await yieldToEventLoop();
  }
  return (perBatch / median(times)) * 1000;
}

/** The async twin of {@link opsWindowSync}: the median wall time of awaited batches. */
export async function opsWindow(batch: () => Promise<void>, perBatch: number, ms: number): Promise<number> {
  const times: number[] = [];
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    const t = now;
    await batch();
    now = performance.now();
    times.push(now - t);
  }
  return (perBatch / median(times)) * 1000;
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
