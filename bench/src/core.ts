import { randomUUID } from 'node:crypto';
import { createHiLoGenerator, memorySource, type HiSource } from 'hilo-core';
import { consume, opsPerSecond, opsPerSecondSync, percentile, type Result } from './measure.js';

const BATCH = 10_000;

/** Keys per second of the generator against a bare counter, measured side by side in this run. */
export async function coreBenchmarks(): Promise<Result[]> {
  let counter = 0;
  const counterOps = await opsPerSecondSync(() => {
    for (let i = 0; i < BATCH; i++) consume(counter++);
  }, BATCH);

  const awaitedCounter = async () => counter++;
  const awaitedOps = await opsPerSecond(async () => {
    for (let i = 0; i < BATCH; i++) consume(await awaitedCounter());
  }, BATCH);

  const uuidOps = await opsPerSecondSync(() => {
    for (let i = 0; i < BATCH; i++) consume(randomUUID());
  }, BATCH);

  const generator = createHiLoGenerator({ source: memorySource(), blockSize: 100_000 });
  await generator.warm(['orders']);
  const nextSyncOps = await opsPerSecondSync(() => {
    for (let i = 0; i < BATCH; i++) {
      consume(generator.nextSync('orders'));
    }
  }, BATCH);
  const nextOps = await opsPerSecond(async () => {
    for (let i = 0; i < BATCH; i++) consume(await generator.next('orders'));
  }, BATCH);
  await generator.close();

  return [
    { name: 'baseline.counter', value: counterOps, unit: 'keys/s' },
    { name: 'baseline.awaitedCounter', value: awaitedOps, unit: 'keys/s' },
    { name: 'baseline.randomUUID', value: uuidOps, unit: 'keys/s' },
    {
      name: 'core.nextSync',
      value: nextSyncOps,
      unit: 'keys/s',
      ratio: nextSyncOps / counterOps,
      target: 0.15,
      note: 'ratio to baseline.counter; target ≥ 0.15',
    },
    {
      name: 'core.next',
      value: nextOps,
      unit: 'keys/s',
      ratio: nextOps / awaitedOps,
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
