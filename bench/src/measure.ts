/** One benchmark figure as written to results/latest.json. */
export interface Result {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly ratio?: number;
  /** The ratio the issue asks for; the chart marks it and colours the bar by it. */
  readonly target?: number;
  readonly note?: string;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs the synchronous `batch` (which performs `perBatch` operations) repeatedly for about `ms` of batch
 * time after a warm-up, and returns operations per second. Between batches it yields to the event loop, as
 * an application does between requests (that is when background reservations complete); only time spent
 * inside batches is counted. The best of `rounds` rounds is kept, to reduce noise from other work.
 */
export async function opsPerSecondSync(batch: () => void, perBatch: number, ms = 400, rounds = 5): Promise<number> {
  const warmUntil = performance.now() + ms / 2;
  while (performance.now() < warmUntil) {
    batch();
    await yieldToEventLoop();
  }
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    let spent = 0;
    while (spent < ms) {
      const t = performance.now();
      batch();
      spent += performance.now() - t;
      n += perBatch;
      await yieldToEventLoop();
    }
    best = Math.max(best, (n / spent) * 1000);
  }
  return best;
}

/** The async twin of {@link opsPerSecondSync}. */
export async function opsPerSecond(
  batch: () => Promise<void>,
  perBatch: number,
  ms = 400,
  rounds = 5,
): Promise<number> {
  const warmUntil = performance.now() + ms / 2;
  while (performance.now() < warmUntil) await batch();
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < ms) {
      await batch();
      n += perBatch;
      now = performance.now();
    }
    best = Math.max(best, (n / (now - start)) * 1000);
  }
  return best;
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
