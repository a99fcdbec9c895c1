import type { BulkConnection, BulkErrorPlace, BulkTableWriter, GraphTarget } from '../../sql/bulk.js';
import type { TableRef } from '../../sql/catalog.js';
import type { DriverErrorLike } from '../../sql/dialect.js';
import type { SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { BulkValueError } from '../../sql/bulk.js';
import { driverParams } from '../../sql/driver-params.js';
import { isTransientError } from '../../sql/driver-errors.js';
import { configurationErrors } from '../../error-messages.js';
import { BinaryRowEncoder, binaryWriter, TextRowEncoder, type PgColumnType } from './copy-encoder.js';
import { CopyIn, type PgSubmittableLike } from './copy-in.js';
import { CopySink } from './copy-sink.js';
import { postgresDialect } from './dialect.js';
import type { PgQueryResultLike } from './client.js';

/** The part of a `pg` `Client` or `PoolClient` a graph load uses. */
export interface PgGraphConnectionLike {
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  /** pg's Submittable form of `query()`, which runs the COPY. */
  query<T extends PgSubmittableLike>(submittable: T): T;
}

/** The part of a `pg` `Pool` a graph load uses: one connection taken for the load, given back after. */
export interface PgGraphPoolLike {
  connect(): Promise<PgGraphConnectionLike & { release(destroy?: boolean | Error): void }>;
}

/** Where {@link pgGraphTarget} loads: a pool (a connection of its own, in a transaction of its own), or your connection. */
export type PgGraphTargetOptions =
  | {
      /** A `pg` `Pool`: the load takes one connection and runs in a transaction of its own on it. */
      readonly pool: PgGraphPoolLike;
    }
  | {
      /** A `pg` `Client` or `PoolClient` you hold: the load runs on it and leaves it open. */
      readonly connection: PgGraphConnectionLike;
      /**
       * Whether `connection` is inside your transaction: the load then runs in a savepoint of it, so that a failed
       * load leaves your transaction as it was, and your commit or rollback decides for the rows.
       * @default false
       */
      readonly inTransaction?: boolean;
    };

/** Bytes encoded before they are handed to the socket (and its backpressure awaited). */
const CHUNK_BYTES = 1 << 16;

function executorOf(connection: PgGraphConnectionLike): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const result = await connection.query(sql, driverParams(params));
      return { rows: (Array.isArray(result.rows) ? result.rows : []) as Row[], affectedRows: result.rowCount ?? 0 };
    },
  };
}

/** Each column's base type (domains resolved) and, for arrays, the element's, read from the catalog once. */
async function columnTypes(executor: SqlExecutor, table: TableRef): Promise<Map<string, PgColumnType>> {
  const quote = postgresDialect.quote;
  const regclass = table.schema === undefined ? quote(table.table) : `${quote(table.schema)}.${quote(table.table)}`;
  const { rows } = await executor.query<{
    n: string;
    t: string;
    k: string;
    eo: number | null;
    e: string | null;
    ek: string | null;
  }>(
    `select a.attname as n, b.typname as t, b.typtype::text as k,
            case when b.typcategory = 'A' then b.typelem::int end as eo, e.typname as e, e.typtype::text as ek
       from pg_attribute a
       join pg_type t on t.oid = a.atttypid
       join pg_type b on b.oid = case when t.typtype = 'd' then t.typbasetype else t.oid end
       left join pg_type e on b.typcategory = 'A' and e.oid = b.typelem
      where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped`,
    [regclass],
  );
  const types = new Map<string, PgColumnType>();
  for (const row of rows) {
    types.set(row.n, {
      name: row.n,
      type: row.t,
      kind: row.k,
      ...(row.eo === null || row.e === null ? {} : { elementOid: row.eo, element: row.e, elementKind: row.ek ?? 'b' }),
    });
  }
  return types;
}

/** Opens a COPY writer for `columns` of `table`: binary when every column's type has an encoder here, text otherwise. */
async function copyWriter(
  connection: PgGraphConnectionLike,
  executor: SqlExecutor,
  table: TableRef,
  columns: readonly string[],
  cache: Map<string, Promise<Map<string, PgColumnType>>>,
): Promise<BulkTableWriter> {
  const cacheKey = JSON.stringify([table.schema, table.table]);
  let read = cache.get(cacheKey);
  if (read === undefined) {
    read = columnTypes(executor, table);
    cache.set(cacheKey, read);
    // a failed read (a missing table) is asked again next time
    read.catch(() => cache.delete(cacheKey));
  }
  const types = await read;
  if (types.size === 0) throw configurationErrors.graphTableMissing(postgresDialect.displayName, table);
  const resolved = columns.map((column) => {
    const type = types.get(column);
    if (type === undefined) throw configurationErrors.graphColumnMissing(table, column);
    return type;
  });
  const writers = resolved.map(binaryWriter);
  const binary = writers.every((writer) => writer !== undefined);
  const encoder = binary
    ? new BinaryRowEncoder(writers)
    : new TextRowEncoder(resolved.map((type) => type.type === 'json' || type.type === 'jsonb'));
  const quote = postgresDialect.quote;
  const target = `${table.schema === undefined ? '' : `${quote(table.schema)}.`}${quote(table.table)}`;
  const sql = `copy ${target} (${columns.map(quote).join(', ')}) from stdin${binary ? ' (format binary)' : ''}`;
  return {
    format: binary ? 'binary' : 'text',
    async write(rows) {
      const copy = new CopyIn(sql);
      void connection.query(copy);
      await copy.ready;
      const sink = new CopySink(CHUNK_BYTES * 2);
      encoder.header(sink);
      for (let i = 0; i < rows.length && !copy.failed; i++) {
        try {
          encoder.row(sink, rows[i]!);
        } catch (error) {
          // the rows before it are not worth sending: the whole load rolls back
          copy.abort(`hilo: row ${i} of the batch has a value that cannot be written`);
          await copy.done.catch(() => undefined);
          if (error instanceof BulkValueError) error.batchRow = i;
          throw error;
        }
        if (sink.length >= CHUNK_BYTES) await copy.send(sink.take());
      }
      encoder.trailer(sink);
      if (sink.length > 0) await copy.send(sink.take());
      copy.end();
      await copy.done;
    },
  };
}

const COPY_PLACE = /^COPY [^,]+, line (\d+)(?:, column ([^:]+))?/m;
const KEY_DETAIL = /Key \((.+?)\)=\((.*)\)/;

/** Where PostgreSQL says a COPY failed: `COPY t, line N, column c` in `where`, `Key (c)=(v)` in `detail`. */
function locate(error: DriverErrorLike): BulkErrorPlace {
  const { where, detail } = error as { where?: unknown; detail?: unknown };
  const place = typeof where === 'string' ? COPY_PLACE.exec(where) : null;
  const key = typeof detail === 'string' ? KEY_DETAIL.exec(detail) : null;
  let values: Record<string, string> | undefined;
  if (key !== null) {
    const names = key[1]!.split(', ');
    const texts = key[2]!.split(', ');
    if (names.length === texts.length) values = Object.fromEntries(names.map((name, i) => [name, texts[i]!]));
  }
  return {
    ...(place === null ? {} : { row: Number(place[1]) - 1 }),
    ...(place?.[2] === undefined ? {} : { column: place[2] }),
    ...(values === undefined ? {} : { values }),
  };
}

function bulkConnection(
  connection: PgGraphConnectionLike,
  inTransaction: boolean,
  release: (broken: boolean) => void,
  cache: Map<string, Promise<Map<string, PgColumnType>>>,
): BulkConnection {
  const executor = executorOf(connection);
  return {
    displayName: postgresDialect.displayName,
    executor,
    inTransaction,
    deferConstraints: 'set constraints all deferred',
    quote: postgresDialect.quote,
    tableWriter: (table, columns) => copyWriter(connection, executor, table, columns, cache),
    locate,
    isTransient: (error) => isTransientError(error, postgresDialect),
    release: (broken) => Promise.resolve(release(broken)),
  };
}

/**
 * Where a graph load writes on PostgreSQL (with `pg`): binary `COPY … FROM STDIN`, each table's column types read
 * from the catalog once per target (create a new target after altering a table's columns); a table with a column of
 * another type (an interval, a range, a PostGIS geometry) travels as text COPY instead. Pass it to {@link loadGraph}.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * const target = pgGraphTarget({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * ```
 */
export function pgGraphTarget(options: PgGraphTargetOptions): GraphTarget {
  // each table's column types, read once per target: a target is reused for the loads of one schema
  const cache = new Map<string, Promise<Map<string, PgColumnType>>>();
  if ('pool' in options) {
    const { pool } = options;
    return {
      async open() {
        const connection = await pool.connect();
        return bulkConnection(connection, false, (broken) => connection.release(broken ? true : undefined), cache);
      },
    };
  }
  const { connection, inTransaction = false } = options;
  return { open: () => Promise.resolve(bulkConnection(connection, inTransaction, () => undefined, cache)) };
}
