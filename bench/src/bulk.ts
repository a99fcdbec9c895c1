import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { createHiLoGenerator, pgClient, sequenceSource } from 'hilo-core';
import type { Result } from './measure.js';

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
}

const ROWS = 1_000_000;
const BATCH = 1_000;
const columns = ['customer_id', 'sku', 'quantity', 'price_cents'] as const;

/** Multi-row INSERT text for `BATCH` rows, with or without the key as first parameter of each row. */
function insertText(table: string, withKey: boolean): string {
  const width = columns.length + (withKey ? 1 : 0);
  const rows = Array.from({ length: BATCH }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`);
  return `insert into ${table} (${withKey ? 'id, ' : ''}${columns.join(', ')}) values ${rows.join(', ')}${withKey ? '' : ' returning id'}`;
}

/**
 * Loads `ROWS` order lines into a fresh table keyed as `keying` says, `BATCH` rows per INSERT on one
 * connection, and returns rows/s (key generation and `RETURNING` included), the primary-key index's size and
 * the WAL written. A CHECKPOINT before each load starts every table from the same full-page-write state.
 */
async function load(client: pg.Client, keying: Keying): Promise<Load> {
  const table = `bulk_${keying.name}`;
  await client.query(`drop table if exists ${table}`);
  await client.query(
    `create table ${table} (id ${keying.keyType} primary key, customer_id bigint not null, sku text not null, quantity integer not null, price_cents integer not null)`,
  );
  const text = insertText(table, keying.keys !== undefined);
  await client.query('checkpoint');
  const walBefore = (await client.query<{ lsn: string }>('select pg_current_wal_lsn() as lsn')).rows[0]!.lsn;
  const start = performance.now();
  let returned = 0;
  let keyMs = 0;
  for (let done = 0; done < ROWS; done += BATCH) {
    const k0 = performance.now();
    const keys = keying.keys === undefined ? undefined : await keying.keys(BATCH);
    keyMs += performance.now() - k0;
    const values: unknown[] = [];
    for (let r = 0; r < BATCH; r++) {
      const n = done + r;
      if (keys !== undefined) values.push(keys[r]);
      values.push(1 + (n % 997), `SKU-${n % 7}`, 1 + (n % 3), 100 + (n % 5000));
    }
    const result = await client.query(text, values);
    if (keys === undefined) returned += result.rows.length; // the application keeps the keys it was given back
  }
  const ms = performance.now() - start;
  if (keying.keys === undefined && returned !== ROWS) throw new Error(`identity load returned ${returned} keys for ${ROWS} rows`);
  const { rows } = await client.query<{ index_bytes: string; wal_bytes: string }>(
    `select pg_relation_size(i.indexrelid) as index_bytes, pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as wal_bytes
       from pg_index i where i.indrelid = $2::regclass and i.indisprimary`,
    [walBefore, table],
  );
  const count = Number((await client.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);
  if (count !== ROWS) throw new Error(`${table} holds ${count} rows, expected ${ROWS}`);
  await client.query(`drop table ${table}`);
  return { rowsPerSecond: (ROWS / ms) * 1000, indexBytes: Number(rows[0]!.index_bytes), walBytes: Number(rows[0]!.wal_bytes), keyMs };
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
  const generator = createHiLoGenerator({ source: sequenceSource(pgClient(pool), { increment: BATCH, create: true }), blockSize: BATCH });
  try {
    const hilo = await load(client, { name: 'hilo', keyType: 'bigint', keys: (count) => generator.reserve('bulk_hilo', count) });
    const uuid = await load(client, { name: 'uuidv7', keyType: 'uuid', keys: (count) => Array.from({ length: count }, () => uuidv7()) });
    const identity = await load(client, { name: 'identity', keyType: 'bigint generated always as identity' });
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    const rate = (r: number) => `${Math.round(r).toLocaleString('en-US')} rows/s`;
    const shape = `1,000,000 rows, ${BATCH} per INSERT`;
    return [
      {
        name: 'pg.bulk.hilo_vs_uuidv7.throughput',
        value: hilo.rowsPerSecond,
        unit: 'rows/s',
        ratio: hilo.rowsPerSecond / uuid.rowsPerSecond,
        target: 1,
        note: `${shape}; hilo ${rate(hilo.rowsPerSecond)} (${Math.round(hilo.keyMs)} ms of it drawing keys), UUIDv7 ${rate(uuid.rowsPerSecond)} (${Math.round(uuid.keyMs)} ms generating them); target ≥ 1.0`,
      },
      {
        name: 'pg.bulk.hilo_vs_identity.throughput',
        value: hilo.rowsPerSecond,
        unit: 'rows/s',
        ratio: hilo.rowsPerSecond / identity.rowsPerSecond,
        target: 1,
        note: `${shape}; identity with RETURNING id ${rate(identity.rowsPerSecond)}; target ≥ 1.0${hilo.rowsPerSecond < identity.rowsPerSecond ? ' (missed: the key is one more bound parameter per row)' : ''}`,
      },
      {
        name: 'pg.bulk.uuidv7_vs_hilo.index_bytes',
        value: uuid.indexBytes,
        unit: 'bytes',
        ratio: uuid.indexBytes / hilo.indexBytes,
        target: 1.35,
        note: `primary-key index: UUIDv7 ${mib(uuid.indexBytes)}, hilo ${mib(hilo.indexBytes)}, identity ${mib(identity.indexBytes)}; target ≥ 1.35 (1.4 is the limit)`,
      },
      {
        name: 'pg.bulk.uuidv7_vs_hilo.wal_bytes',
        value: uuid.walBytes,
        unit: 'bytes',
        ratio: uuid.walBytes / hilo.walBytes,
        note: `WAL written by the load: UUIDv7 ${mib(uuid.walBytes)}, hilo ${mib(hilo.walBytes)}, identity ${mib(identity.walBytes)}`,
      },
    ];
  } finally {
    await generator.close();
    await pool.end();
    await client.end();
  }
}
