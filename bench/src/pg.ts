import pg from 'pg';
import {
  createHiLoGenerator,
  pgClient,
  sequenceSource,
  sqlStoredKeys,
  tableSource,
  type HiSource,
  type SqlClient,
  type StoredKeys,
} from 'hilo-core';
import { roundTripMs, startLatencyProxy } from './latency.js';
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
async function concurrent(
  source: HiSource,
  segment: string,
  storedKeys?: StoredKeys,
): Promise<{ ops: number; perMillion: number }> {
  const generator = createHiLoGenerator({ source, blockSize: 100, ...(storedKeys ? { storedKeys } : {}) });
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

/**
 * A key table for verified blocks: 10,000 rows below every block (negative keys), so that each probe walks a real
 * primary-key index and finds nothing, as in a healthy application.
 */
async function keyTable(client: SqlClient, table: string): Promise<void> {
  await client.query(`drop table if exists ${table}`);
  await client.query(`create table ${table} (id bigint primary key)`);
  await client.query(`insert into ${table} (id) select -g from generate_series(1, 10000) g`);
  await client.query(`analyze ${table}`);
}

/**
 * The median time of one reservation (100 keys, a sequence) through a proxy that makes every round trip about
 * 1 ms, with and without verified blocks: what the probe adds where production databases are.
 */
async function reservationLatency(url: string): Promise<{ plain: number; verified: number; rtt: number }> {
  const direct = await roundTripMs(url);
  const bare = await startLatencyProxy(url, 0);
  const forwarding = Math.max(0, (await roundTripMs(bare.url)) - direct);
  await bare.close();
  const proxy = await startLatencyProxy(url, Math.max(0, (1 - forwarding) / 2));
  const pool = new pg.Pool({ connectionString: proxy.url, max: 2 });
  const client = pgClient(pool);
  try {
    const rtt = await roundTripMs(proxy.url);
    await keyTable(client, 'bench_latency_rows');
    const median = async (segment: string, storedKeys?: StoredKeys) => {
      const generator = createHiLoGenerator({
        source: sequenceSource(client, { increment: 100 }),
        blockSize: 100,
        adaptive: false,
        prefetchAt: false,
        ...(storedKeys ? { storedKeys } : {}),
      });
      const times: number[] = [];
      try {
        for (let i = 0; i < 220; i++) {
          const t = performance.now();
          consume((await generator.reserve(segment, 100)).length);
          if (i >= 20) times.push(performance.now() - t);
        }
      } finally {
        await generator.close();
      }
      return times.sort((a, b) => a - b)[times.length >> 1]!;
    };
    const stored = (segment: string) => sqlStoredKeys(client, [{ segment, table: 'bench_latency_rows', column: 'id' }]);
    const plain = await median('bench_lat_plain');
    const verified = await median('bench_lat_verified', stored('bench_lat_verified'));
    return { plain, verified, rtt };
  } finally {
    await client.close();
    await pool.end();
    await proxy.close();
  }
}

/** PostgreSQL benchmarks; `coreNext` is core.next from the same run, for the ratio. */
export async function pgBenchmarks(url: string, coreNext: number): Promise<Result[]> {
  const perId = await nextvalPerId(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const client = pgClient(pool);
  try {
    const seq = await concurrent(sequenceSource(client, { increment: 100 }), 'bench_seq');
    const table = await concurrent(tableSource(client), 'bench_table');
    // verified blocks (issue 39): the same runs, each block probed against a table of 10,000 keys
    await keyTable(client, 'bench_rows');
    const verifiedBy = (segment: string) => sqlStoredKeys(client, [{ segment, table: 'bench_rows', column: 'id' }]);
    const seqVerified = await concurrent(
      sequenceSource(client, { increment: 100 }),
      'bench_seq_v',
      verifiedBy('bench_seq_v'),
    );
    const tableVerified = await concurrent(tableSource(client), 'bench_table_v', verifiedBy('bench_table_v'));
    const latency = await reservationLatency(url);
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
      {
        name: 'pg.sequence.c64.verified',
        value: seqVerified.ops,
        unit: 'keys/s',
        ratio: seqVerified.ops / seq.ops,
        note: `ratio to pg.sequence.c64 (same run, no check); ${seqVerified.perMillion.toFixed(0)} reservations per million`,
      },
      {
        name: 'pg.table.c64.verified',
        value: tableVerified.ops,
        unit: 'keys/s',
        ratio: tableVerified.ops / table.ops,
        note: `ratio to pg.table.c64 (same run, no check); ${tableVerified.perMillion.toFixed(0)} reservations per million`,
      },
      {
        name: 'pg.reservation.verified_ms',
        value: latency.verified,
        unit: 'ms',
        ratio: latency.verified / latency.plain,
        note:
          `median reservation of 100 keys with verified blocks, ratio to the same without (${latency.plain.toFixed(2)} ms); ` +
          `round trip ${latency.rtt.toFixed(2)} ms through a latency proxy; the probe is one more round trip`,
      },
    ];
  } finally {
    await client.close();
    await pool.end();
  }
}
