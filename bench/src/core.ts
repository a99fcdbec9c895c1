import { randomUUID } from 'node:crypto';
import { createHiLoGenerator, memorySource, type HiSource } from 'hilo-core';
import { consume, opsWindow, opsWindowSync, percentile, warmUp, type Result } from './measure.js';
import { median, pairedRatio, pairedRounds } from './spread.js';

const BATCH = 10_000;
/**
 * Awaited batches are smaller: 10,000 awaits take about 0.4 ms, long enough that on a busy machine most batches are
 * preempted (then even their median measures the scheduler); 1,000 take about 40 µs.
 */
const ASYNC_BATCH = 1_000;
/** Paired rounds per core ratio, and the measuring window of each side in a round. */
const ROUNDS = 9;
const WINDOW_MS = 200;

/**
 * Keys per second of the generator against a bare counter: each ratio from {@link ROUNDS} paired rounds (the
 * generator's window and the counter's back to back, alternating which goes first), the median of the per-round
 * ratios. Each window's rate is taken at its median batch time (see `opsWindowSync`), so that the batches a busy
 * machine's scheduler preempts do not decide the figure. Values are the medians of each side's windows.
 */
export async function coreBenchmarks(): Promise<Result[]> {
  let counter = 0;
  const counterBatch = () => {
    for (let i = 0; i < BATCH; i++) consume(counter++);
  };
  const awaitedCounter = async () => counter++;
  const awaitedBatch = async () => {
    for (let i = 0; i < ASYNC_BATCH; i++) consume(await awaitedCounter());
  };
  const uuidBatch = () => {
    for (let i = 0; i < BATCH; i++) consume(randomUUID());
  };

  const generator = createHiLoGenerator({ source: memorySource(), blockSize: 100_000 });
  await generator.warm(['orders']);
  const nextSyncBatch = () => {
    for (let i = 0; i < BATCH; i++) consume(generator.nextSync('orders'));
  };
  const nextBatch = async () => {
    for (let i = 0; i < ASYNC_BATCH; i++) consume(await generator.next('orders'));
  };
  for (const batch of [counterBatch, awaitedBatch, uuidBatch, nextSyncBatch, nextBatch]) await warmUp(batch, 200);

  const sync = await pairedRounds(
    ROUNDS,
    () => opsWindowSync(nextSyncBatch, BATCH, WINDOW_MS),
    () => opsWindowSync(counterBatch, BATCH, WINDOW_MS),
  );
  const awaited = await pairedRounds(
    ROUNDS,
    () => opsWindow(nextBatch, ASYNC_BATCH, WINDOW_MS),
    () => opsWindow(awaitedBatch, ASYNC_BATCH, WINDOW_MS),
  );
  const uuids: number[] = [];
  for (let r = 0; r < 5; r++) uuids.push(await opsWindowSync(uuidBatch, BATCH, WINDOW_MS));
  await generator.close();

  return [
    { name: 'baseline.counter', value: median(sync.b), unit: 'keys/s' },
    { name: 'baseline.awaitedCounter', value: median(awaited.b), unit: 'keys/s' },
    { name: 'baseline.randomUUID', value: median(uuids), unit: 'keys/s' },
    {
      name: 'core.nextSync',
      value: median(sync.a),
      unit: 'keys/s',
      ...pairedRatio(sync.a, sync.b),
      target: 0.15,
      note: 'ratio to baseline.counter; target ≥ 0.15',
    },
    {
      name: 'core.next',
      value: median(awaited.a),
      unit: 'keys/s',
      ...pairedRatio(awaited.a, awaited.b),
      target: 0.6,
      note: 'ratio to baseline.awaitedCounter; target ≥ 0.6',
    },
  ];
}

/**
 * p99 latency of next() across block boundaries, with a source that takes `latencyMs` per round trip. Keys
 * are asked for one per timer tick (about 1 ms apart, as requests arrive in a service), and blocks hold 50
 * keys, so 2 % of the calls cross a block boundary and the p99 shows what crossing costs: a round trip
 * without prefetch, nothing when the next block was reserved in the background.
 */
export async function boundaryLatency(source: (blockSize: number) => HiSource, label: string): Promise<Result[]> {
  const out: Result[] = [];
  const keys = 2_000;
  const blockSize = 50;
  for (const prefetch of [true, false]) {
    const generator = createHiLoGenerator({
      source: source(blockSize),
      blockSize,
      adaptive: false,
      prefetchAt: prefetch ? 0.8 : false,
    });
    await generator.warm(['orders']);
    const samples: number[] = [];
    for (let i = 0; i < keys; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      const t = performance.now();
      consume(await generator.next('orders'));
      samples.push((performance.now() - t) * 1000);
    }
    const reservations = generator.stats().orders!.reservations;
    await generator.close();
    out.push({
      name: `${label}.next.p99.prefetch-${prefetch ? 'on' : 'off'}`,
      value: percentile(samples, 99),
      unit: 'µs',
      note: `${reservations} reservations for ${keys} keys, one key per timer tick`,
    });
  }
  return out;
}
