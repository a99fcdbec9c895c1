import pg from 'pg';
import { createHiLoGenerator, pgClient, sequenceSource, tableSource, type HiSource } from 'hilo-core';
import { consume, type Result } from './measure.js';

/** Keys/s with one database round trip per key: what an app does without hi/lo. */
async function nextvalPerId(url: string): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('create sequence if not exists bench_per_id_seq');
    for (let i = 0; i < 200; i++) await client.query("select nextval('bench_per_id_seq')");
    const n = 3000;
    const t = performance.now();
    for (let i = 0; i < n; i++)
      consume(Number((await client.query<{ v: string }>("select nextval('bench_per_id_seq') as v")).rows[0]!.v));
    return (n / (performance.now() - t)) * 1000;
  } finally {
    await client.end();
  }
}

/**
 * Keys/s and reservations per million keys with 64 concurrent callers and real reservations. Measured like
 * core.next: after a warm-up run, the best of three runs (each 64 × 20,000 keys).
 */
async function concurrent(source: HiSource, segment: string): Promise<{ ops: number; perMillion: number }> {
  const generator = createHiLoGenerator({ source, blockSize: 100 });
  await generator.warm([segment]);
  const run = async (perCaller: number) => {
    const t = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        for (let i = 0; i < perCaller; i++) consume(await generator.next(segment));
      }),
    );
    return ((64 * perCaller) / (performance.now() - t)) * 1000;
  };
  await run(5_000);
  let best = 0;
  for (let r = 0; r < 3; r++) best = Math.max(best, await run(20_000));
  const stats = generator.stats()[segment]!;
  await generator.close();
  return { ops: best, perMillion: (stats.reservations / stats.keysIssued) * 1e6 };
}

/** PostgreSQL benchmarks; `coreNext` is core.next from the same run, for the ratio. */
export async function pgBenchmarks(url: string, coreNext: number): Promise<Result[]> {
  const perId = await nextvalPerId(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const client = pgClient(pool);
  try {
    const seq = await concurrent(sequenceSource(client, { increment: 100 }), 'bench_seq');
    const table = await concurrent(tableSource(client), 'bench_table');
    return [
      { name: 'pg.nextval_per_id', value: perId, unit: 'keys/s', note: 'one round trip per key' },
      {
        name: 'pg.sequence.c64',
        value: seq.ops,
        unit: 'keys/s',
        ratio: seq.ops / perId,
        target: 100,
        note: `ratio to pg.nextval_per_id (target ≥ 100); ${(seq.ops / coreNext).toFixed(2)}× core.next (target ≥ 0.5)`,
      },
      {
        name: 'pg.table.c64',
        value: table.ops,
        unit: 'keys/s',
        ratio: table.ops / perId,
        target: 100,
        note: `ratio to pg.nextval_per_id (target ≥ 100); ${(table.ops / coreNext).toFixed(2)}× core.next (target ≥ 0.5)`,
      },
      {
        name: 'pg.sequence.reservations_per_million',
        value: seq.perMillion,
        unit: 'reservations',
        note: 'adaptive blocks from 100',
      },
      {
        name: 'pg.table.reservations_per_million',
        value: table.perMillion,
        unit: 'reservations',
        note: 'adaptive blocks from 100',
      },
    ];
  } finally {
    await client.close();
    await pool.end();
  }
}
