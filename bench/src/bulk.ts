import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { createHiLoGenerator, pgClient, sequenceSource } from 'hilo-core';
import type { Result } from './measure.js';
import { pairedRatio } from './spread.js';

/** One way of keying the bulk load: the key column's type, and how each batch gets (or returns) its keys. */
interface Keying {
  readonly name: 'hilo' | 'uuidv7' | 'identity';
  readonly keyType: string;
  /** Keys for `count` rows, or `undefined` when the database assigns them (`RETURNING id`). */
  readonly keys?: (count: number) => Promise<readonly unknown[]> | readonly unknown[];
}

interface Load {
  readonly rowsPerSecond: number;
  readonly indexBytes: number;
  readonly walBytes: number;
  /** Time spent producing keys (hilo's reservations, UUIDv7 generation), included in the rate. */
  readonly keyMs: number;
  /** Milliseconds of each {@link CHUNKS}th of the load: the rounds of the throughput ratios' spread. */
  readonly chunkMs: readonly number[];
  /** WAL bytes of each chunk. */
  readonly chunkWal: readonly number[];
}

const ROWS = 1_000_000;
const BATCH = 1_000;
/** The load's 1,000 interleaved batch rounds fall into this many chunks, each a paired round of the ratios. */
const CHUNKS = 10;
const columns = ['customer_id', 'sku', 'quantity', 'price_cents'] as const;

/** Multi-row INSERT text for `BATCH` rows, with or without the key as first parameter of each row. */
function insertText(table: string, withKey: boolean): string {
  const width = columns.length + (withKey ? 1 : 0);
  const rows = Array.from(
    { length: BATCH },
    (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`,
  );
  return `insert into ${table} (${withKey ? 'id, ' : ''}${columns.join(', ')}) values ${rows.join(', ')}${withKey ? '' : ' returning id'}`;
}

/** One keying's table, its INSERT text and what its load has cost so far. */
interface Lane {
  readonly keying: Keying;
  readonly table: string;
  readonly text: string;
  ms: number;
  keyMs: number;
  walBytes: number;
  returned: number;
  chunkMs: number[];
  chunkWal: number[];
}

/**
 * Loads `ROWS` order lines into a fresh table per keying, `BATCH` rows per INSERT on one connection (a
 * named prepared statement per keying: unprepared, parsing and planning 4,000–5,000 parameters per INSERT
 * costs more than the load itself), the keyings' batches interleaved in rotating order so that whatever the
 * machine and the server do meanwhile (checkpoints, autovacuum, a noisy neighbour) falls on all of them
 * alike. Returns, per keying, rows/s (key generation and `RETURNING` included), the primary-key index's size,
 * and the WAL its INSERTs wrote (the LSN moved across each of its batches). A CHECKPOINT first starts every table from the same state.
 */
async function loadSideBySide(client: pg.Client, keyings: readonly Keying[]): Promise<Map<Keying['name'], Load>> {
  const lanes: Lane[] = [];
  for (const keying of keyings) {
    const table = `bulk_${keying.name}`;
    await client.query(`drop table if exists ${table}`);
    await client.query(
      `create table ${table} (id ${keying.keyType} primary key, customer_id bigint not null, sku text ` +
        `not null, quantity integer not null, price_cents integer not null)`,
    );
    lanes.push({
      keying,
      table,
      text: insertText(table, keying.keys !== undefined),
      ms: 0,
      keyMs: 0,
      walBytes: 0,
      returned: 0,
      chunkMs: Array.from({ length: CHUNKS }, () => 0),
      chunkWal: Array.from({ length: CHUNKS }, () => 0),
    });
  }
  await client.query('checkpoint');
  const lsn = async () =>
    (await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
  for (let done = 0, round = 0; done < ROWS; done += BATCH, round++) {
    const chunk = Math.floor((round * CHUNKS * BATCH) / ROWS);
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[(round + i) % lanes.length]!;
      const before = await lsn();
      const start = performance.now();
      const keys = lane.keying.keys === undefined ? undefined : await lane.keying.keys(BATCH);
      lane.keyMs += performance.now() - start;
      const values: unknown[] = [];
      for (let r = 0; r < BATCH; r++) {
        const n = done + r;
        if (keys !== undefined) values.push(keys[r]);
        values.push(1 + (n % 997), `SKU-${n % 7}`, 1 + (n % 3), 100 + (n % 5000));
      }
      // a named statement, parsed and planned once per keying, as a bulk loader repeating one INSERT shape would
      const result = await client.query({ name: lane.table, text: lane.text, values });
      if (keys === undefined) lane.returned += result.rows.length; // the application keeps the keys it was given back
      const ms = performance.now() - start;
      lane.ms += ms;
      lane.chunkMs[chunk]! += ms;
      const { rows } = await client.query<{ d: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as d', [
        before,
      ]);
      lane.walBytes += Number(rows[0]!.d);
      lane.chunkWal[chunk]! += Number(rows[0]!.d);
    }
  }
  const loads = new Map<Keying['name'], Load>();
  for (const lane of lanes) {
    if (lane.keying.keys === undefined && lane.returned !== ROWS)
      throw new Error(`identity load returned ${lane.returned} keys for ${ROWS} rows`);
    const { rows } = await client.query<{ index_bytes: string }>(
      `select pg_relation_size(i.indexrelid) as index_bytes from pg_index i where i.indrelid = $1::regclass and i.indisprimary`,
      [lane.table],
    );
    const count = Number((await client.query<{ n: string }>(`select count(*) as n from ${lane.table}`)).rows[0]!.n);
    if (count !== ROWS) throw new Error(`${lane.table} holds ${count} rows, expected ${ROWS}`);
    await client.query(`drop table ${lane.table}`);
    loads.set(lane.keying.name, {
      rowsPerSecond: (ROWS / lane.ms) * 1000,
      indexBytes: Number(rows[0]!.index_bytes),
      walBytes: lane.walBytes,
      keyMs: lane.keyMs,
      chunkMs: lane.chunkMs,
      chunkWal: lane.chunkWal,
    });
  }
  return loads;
}

/**
 * What users pick today to know a key before the insert, side by side on PostgreSQL: 1,000,000 rows by
 * multi-row INSERT keyed by hilo (bigint, keys reserved from a sequence as the load runs), by client-generated
 * UUIDv7 (`uuid` column, the `uuid` package), and by identity with `RETURNING id` (the application needs its keys).
 */
export async function bulkBenchmarks(url: string): Promise<Result[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const generator = createHiLoGenerator({
    source: sequenceSource(pgClient(pool), { increment: BATCH, create: true }),
    blockSize: BATCH,
  });
  try {
    const loads = await loadSideBySide(client, [
      { name: 'hilo', keyType: 'bigint', keys: (count) => generator.reserve('bulk_hilo', count) },
      { name: 'uuidv7', keyType: 'uuid', keys: (count) => Array.from({ length: count }, () => uuidv7()) },
      { name: 'identity', keyType: 'bigint generated always as identity' },
    ]);
    const hilo = loads.get('hilo')!;
    const uuid = loads.get('uuidv7')!;
    const identity = loads.get('identity')!;
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    const rate = (r: number) => `${Math.round(r).toLocaleString('en-US')} rows/s`;
    const shape =
      `1,000,000 rows per keying, ${BATCH} per INSERT (one named prepared statement per keying), the ` +
      `keyings' batches interleaved; ratios per tenth of the load`;
    return [
      {
        name: 'pg.bulk.hilo_vs_uuidv7.throughput',
        value: hilo.rowsPerSecond,
        unit: 'rows/s',
        // rows/s ratio per chunk: the same rows on both lanes, so UUIDv7's time over hilo's
        ...pairedRatio(uuid.chunkMs, hilo.chunkMs),
        target: 1,
        note:
          `${shape}; hilo ${rate(hilo.rowsPerSecond)} (${Math.round(hilo.keyMs)} ms of it drawing keys), ` +
          `UUIDv7 ${rate(uuid.rowsPerSecond)} (${Math.round(uuid.keyMs)} ms generating them); target ≥ 1.0`,
      },
      {
        name: 'pg.bulk.hilo_vs_identity.throughput',
        value: hilo.rowsPerSecond,
        unit: 'rows/s',
        ...pairedRatio(identity.chunkMs, hilo.chunkMs),
        target: 1,
        note:
          `${shape}; identity with RETURNING id ${rate(identity.rowsPerSecond)}; target ≥ 1.0` +
          (hilo.rowsPerSecond < identity.rowsPerSecond
            ? ' (missed: hilo binds the key as one more parameter per row, where identity draws it on the server)'
            : ''),
      },
      {
        name: 'pg.bulk.uuidv7_vs_hilo.index_bytes',
        value: uuid.indexBytes,
        unit: 'bytes',
        // sizes do not move with machine load: one measurement, shown as a spread of one round
        ...pairedRatio([uuid.indexBytes], [hilo.indexBytes]),
        target: 1.35,
        note:
          `primary-key index: UUIDv7 ${mib(uuid.indexBytes)}, hilo ${mib(hilo.indexBytes)}, identity ${mib(identity.indexBytes)}; ` +
          `target ≥ 1.35 (1.4 is the limit); one measurement (sizes do not vary with load)`,
      },
      {
        name: 'pg.bulk.uuidv7_vs_hilo.wal_bytes',
        value: uuid.walBytes,
        unit: 'bytes',
        ...pairedRatio(uuid.chunkWal, hilo.chunkWal),
        note: `WAL written by the load: UUIDv7 ${mib(uuid.walBytes)}, hilo ${mib(hilo.walBytes)}, identity ${mib(identity.walBytes)}`,
      },
    ];
  } finally {
    await generator.close();
    await pool.end();
    await client.end();
  }
}
