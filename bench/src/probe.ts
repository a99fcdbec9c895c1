// Verified blocks on a large table (issue 46, item 5): what one reservation's probe costs with an index leading with
// the key column, without one (each probe reads the table: hilo warns HILO_PROBE_SCANS at start), and with keys
// written as decimal text (Kysely's `as: 'string'`) in an indexed text column.
import pg from 'pg';
import {
  createHiLoGenerator,
  memorySource,
  pgClient,
  sqlStoredKeys,
  type SqlClient,
  type StoredKeyKind,
} from 'hilo-core';
import { consume, type Result } from './measure.js';
import { median, pairedRatio, pairedRounds } from './spread.js';

const ROWS = 100_000;

/** A key table of `ROWS` keys 1…ROWS, as `type`, with or without a primary key. */
async function keyTable(client: SqlClient, table: string, type: 'bigint' | 'text', indexed: boolean): Promise<void> {
  await client.query(`drop table if exists ${table}`);
  await client.query(`create table ${table} (id ${type} ${indexed ? 'primary key' : 'not null'})`);
  await client.query(
    `insert into ${table} (id) select g${type === 'text' ? '::text' : ''} from generate_series(1, ${ROWS}) g`,
  );
  await client.query(`analyze ${table}`);
}

/**
 * Verified reservations of 100 keys on `table`, timed: each call of `median(count)` makes `count` reservations and
 * returns their median time. The hi store is in memory, starting above the rows, so the figure is the check
 * itself: one `between` probe per block, finding nothing, as in a healthy application.
 */
function verifiedReservations(client: SqlClient, table: string, kind: StoredKeyKind) {
  const segment = `${table}_seg`;
  const generator = createHiLoGenerator({
    source: memorySource({ start: 10 * ROWS }),
    blockSize: 100,
    adaptive: false,
    prefetchAt: false,
    storedKeys: sqlStoredKeys(client, [{ segment, table, column: 'id', kind }]),
  });
  return {
    async median(count: number): Promise<number> {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        consume((await generator.reserve(segment, 100)).length);
        times.push(performance.now() - t);
      }
      return median(times);
    },
    close: () => generator.close(),
  };
}

/** Paired rounds per probe ratio, each of {@link PER_ROUND} reservations a side (200 timed reservations a side). */
const ROUNDS = 10;
const PER_ROUND = 20;

/** The probe benchmarks on PostgreSQL at `url`. */
export async function probeBenchmarks(url: string): Promise<Result[]> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const client = pgClient(pool);
  try {
    await keyTable(client, 'bench_probe_indexed', 'bigint', true);
    await keyTable(client, 'bench_probe_scanned', 'bigint', false);
    await keyTable(client, 'bench_probe_text', 'text', true);
    const indexedSide = verifiedReservations(client, 'bench_probe_indexed', 'number');
    const scannedSide = verifiedReservations(client, 'bench_probe_scanned', 'number');
    const textSide = verifiedReservations(client, 'bench_probe_text', 'string');
    const sides = [indexedSide, scannedSide, textSide];
    const measured = await (async () => {
      try {
        for (const side of sides) await side.median(20); // warm-up
        const scanned = await pairedRounds(
          ROUNDS,
          () => scannedSide.median(PER_ROUND),
          () => indexedSide.median(PER_ROUND),
        );
        const text = await pairedRounds(
          ROUNDS,
          () => textSide.median(PER_ROUND),
          () => indexedSide.median(PER_ROUND),
        );
        return { scanned, text };
      } finally {
        for (const side of sides) await side.close();
      }
    })();
    for (const table of ['bench_probe_indexed', 'bench_probe_scanned', 'bench_probe_text'])
      await client.query(`drop table ${table}`);
    const { scanned, text } = measured;
    return [
      {
        name: 'pg.probe.indexed_ms',
        value: median([...scanned.b, ...text.b]),
        unit: 'ms',
        note: `median verified reservation of 100 keys, ${ROWS.toLocaleString('en')} stored bigint keys, primary key`,
      },
      {
        name: 'pg.probe.no_index_ms',
        value: median(scanned.a),
        unit: 'ms',
        ...pairedRatio(scanned.a, scanned.b),
        note: 'the same without an index on the key column (HILO_PROBE_SCANS at start); ratio to pg.probe.indexed_ms',
      },
      {
        name: 'pg.probe.text_keys_ms',
        value: median(text.a),
        unit: 'ms',
        ...pairedRatio(text.a, text.b),
        note: "keys as decimal text (as: 'string') in a text primary key, compared as numbers; ratio to pg.probe.indexed_ms",
      },
    ];
  } finally {
    await client.close();
    await pool.end();
  }
}
