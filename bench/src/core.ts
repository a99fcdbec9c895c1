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
    { name: 'core.nextSync', value: nextSyncOps, unit: 'keys/s', ratio: nextSyncOps / counterOps, note: 'ratio to baseline.counter; target ≥ 0.15' },
    { name: 'core.next', value: nextOps, unit: 'keys/s', ratio: nextOps / awaitedOps, note: 'ratio to baseline.awaitedCounter; target ≥ 0.6' },
  ];
}

/** p99 latency of next() across block boundaries, with a source that takes `latencyMs` per round trip. */
export async function boundaryLatency(source: () => HiSource, label: string): Promise<Result[]> {
  const out: Result[] = [];
  for (const prefetch of [true, false]) {
    const generator = createHiLoGenerator({ source: source(), blockSize: 100, adaptive: false, prefetchAt: prefetch ? 0.8 : false });
    await generator.warm(['orders']);
    const samples: number[] = [];
    for (let i = 0; i < 5_000; i++) {
      const t = performance.now();
      consume(await generator.next('orders'));
      samples.push((performance.now() - t) * 1000);
      // a caller that does some work between keys, as an app does
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const reservations = generator.stats().orders!.reservations;
    await generator.close();
    out.push({
      name: `${label}.next.p99.prefetch-${prefetch ? 'on' : 'off'}`,
      value: percentile(samples, 99),
      unit: 'µs',
      note: `${reservations} reservations for 5000 keys`,
    });
  }
  return out;
}
