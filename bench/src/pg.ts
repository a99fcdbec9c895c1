import pg from 'pg';
import {
  createHiLoGenerator,
  type HiLoGenerator,
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
import { median, pairedRatio, pairedRounds, type Spread } from './spread.js';

/** Paired rounds per PostgreSQL ratio. */
const ROUNDS = 7;

/**
 * Keys/s with one database round trip per key: what an app does without hi/lo. Returns one measuring window
 * (1,000 keys) per call, after a warm-up; `close()` ends its connection.
 */
async function nextvalPerId(url: string): Promise<{ run: () => Promise<number>; close: () => Promise<void> }> {
  const client = new pg.Client(url);
  await client.connect();
  await client.query('create sequence if not exists bench_per_id_seq');
  for (let i = 0; i < 200; i++) await client.query("select nextval('bench_per_id_seq')");
  return {
    async run() {
      const n = 1000;
      const t = performance.now();
      for (let i = 0; i < n; i++)
        consume(Number((await client.query<{ v: string }>("select nextval('bench_per_id_seq') as v")).rows[0]!.v));
      return (n / (performance.now() - t)) * 1000;
    },
    close: () => client.end(),
  };
}

/** One generator's concurrent runs, measured in paired rounds against another's. */
interface Concurrent {
  /** Keys/s of one run: 64 concurrent callers, 10,000 keys each. */
  run(): Promise<number>;
  /** Reservations per million keys over every run so far. */
  perMillion(): number;
  close(): Promise<void>;
}

/**
 * 64 concurrent callers drawing keys with real reservations, after a warm-up run (64 × 5,000 keys); each
 * {@link Concurrent.run} is one measuring window.
 */
async function concurrent(source: HiSource, segment: string, storedKeys?: StoredKeys): Promise<Concurrent> {
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
  return {
    run: () => run(10_000),
    perMillion() {
      const stats = generator.stats()[segment]!;
      return (stats.reservations / stats.keysIssued) * 1e6;
    },
    close: () => generator.close(),
  };
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
async function reservationLatency(
  url: string,
): Promise<{ plain: number; verified: number; rtt: number; ratio: number; spread: Spread }> {
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
    const generatorFor = (segment: string, storedKeys?: StoredKeys) =>
      createHiLoGenerator({
        source: sequenceSource(client, { increment: 100 }),
        blockSize: 100,
        adaptive: false,
        prefetchAt: false,
        ...(storedKeys ? { storedKeys } : {}),
      });
    const stored = (segment: string) => sqlStoredKeys(client, [{ segment, table: 'bench_latency_rows', column: 'id' }]);
    const plainGenerator = generatorFor('bench_lat_plain');
    const verifiedGenerator = generatorFor('bench_lat_verified', stored('bench_lat_verified'));
    /** The median time of `count` reservations of 100 keys. */
    const reservations = async (generator: HiLoGenerator<number>, segment: string, count: number) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        consume((await generator.reserve(segment, 100)).length);
        times.push(performance.now() - t);
      }
      return median(times);
    };
    try {
      await reservations(plainGenerator, 'bench_lat_plain', 20);
      await reservations(verifiedGenerator, 'bench_lat_verified', 20);
      // 10 paired rounds of 20 reservations a side: 200 timed reservations each
      const rounds = await pairedRounds(
        10,
        () => reservations(verifiedGenerator, 'bench_lat_verified', 20),
        () => reservations(plainGenerator, 'bench_lat_plain', 20),
      );
      return { plain: median(rounds.b), verified: median(rounds.a), ...pairedRatio(rounds.a, rounds.b), rtt };
    } finally {
      await plainGenerator.close();
      await verifiedGenerator.close();
    }
  } finally {
    await client.close();
    await pool.end();
    await proxy.close();
  }
}

/** PostgreSQL benchmarks; `coreNext` is core.next from the same run, for the ratio. */
export async function pgBenchmarks(url: string, coreNext: number): Promise<Result[]> {
  const perIdRunner = await nextvalPerId(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const client = pgClient(pool);
  const runners: Concurrent[] = [];
  try {
    const start = async (source: HiSource, segment: string, storedKeys?: StoredKeys) => {
      const runner = await concurrent(source, segment, storedKeys);
      runners.push(runner);
      return runner;
    };
    // verified blocks (issue 39): the same runs, each block probed against a table of 10,000 keys
    await keyTable(client, 'bench_rows');
    const verifiedBy = (segment: string) => sqlStoredKeys(client, [{ segment, table: 'bench_rows', column: 'id' }]);
    const seqRunner = await start(sequenceSource(client, { increment: 100 }), 'bench_seq');
    const tableRunner = await start(tableSource(client), 'bench_table');
    const seqVerifiedRunner = await start(
      sequenceSource(client, { increment: 100 }),
      'bench_seq_v',
      verifiedBy('bench_seq_v'),
    );
    const tableVerifiedRunner = await start(tableSource(client), 'bench_table_v', verifiedBy('bench_table_v'));
    // each ratio from paired rounds of its two sides (spread.ts)
    const seqRounds = await pairedRounds(ROUNDS, seqRunner.run, perIdRunner.run);
    const tableRounds = await pairedRounds(ROUNDS, tableRunner.run, perIdRunner.run);
    const seqVerifiedRounds = await pairedRounds(ROUNDS, seqVerifiedRunner.run, seqRunner.run);
    const tableVerifiedRounds = await pairedRounds(ROUNDS, tableVerifiedRunner.run, tableRunner.run);
    const perId = median([...seqRounds.b, ...tableRounds.b]);
    const seq = { ops: median(seqRounds.a), perMillion: seqRunner.perMillion() };
    const table = { ops: median(tableRounds.a), perMillion: tableRunner.perMillion() };
    const seqVerified = { ops: median(seqVerifiedRounds.a), perMillion: seqVerifiedRunner.perMillion() };
    const tableVerified = { ops: median(tableVerifiedRounds.a), perMillion: tableVerifiedRunner.perMillion() };
    const latency = await reservationLatency(url);
    return [
      { name: 'pg.nextval_per_id', value: perId, unit: 'keys/s', note: 'one round trip per key' },
      {
        name: 'pg.sequence.c64',
        value: seq.ops,
        unit: 'keys/s',
        ...pairedRatio(seqRounds.a, seqRounds.b),
        target: 100,
        note: `ratio to pg.nextval_per_id (target ≥ 100); ${(seq.ops / coreNext).toFixed(2)}× core.next (target ≥ 0.5)`,
      },
      {
        name: 'pg.table.c64',
        value: table.ops,
        unit: 'keys/s',
        ...pairedRatio(tableRounds.a, tableRounds.b),
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
        ...pairedRatio(seqVerifiedRounds.a, seqVerifiedRounds.b),
        note: `ratio to pg.sequence.c64 (same run, no check); ${seqVerified.perMillion.toFixed(0)} reservations per million`,
      },
      {
        name: 'pg.table.c64.verified',
        value: tableVerified.ops,
        unit: 'keys/s',
        ...pairedRatio(tableVerifiedRounds.a, tableVerifiedRounds.b),
        note: `ratio to pg.table.c64 (same run, no check); ${tableVerified.perMillion.toFixed(0)} reservations per million`,
      },
      {
        name: 'pg.reservation.verified_ms',
        value: latency.verified,
        unit: 'ms',
        ratio: latency.ratio,
        spread: latency.spread,
        note:
          `median reservation of 100 keys with verified blocks, ratio to the same without (${latency.plain.toFixed(2)} ms); ` +
          `round trip ${latency.rtt.toFixed(2)} ms through a latency proxy; the probe is one more round trip`,
      },
    ];
  } finally {
    for (const runner of runners) await runner.close();
    await perIdRunner.close();
    await client.close();
    await pool.end();
  }
}
