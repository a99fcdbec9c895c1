import type { BulkConnection, BulkErrorPlace, BulkTableWriter, GraphTarget } from '../../sql/bulk.js';
import type { TableRef } from '../../sql/catalog.js';
import type { SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { driverParams } from '../../sql/driver-params.js';
import { isTransientError } from '../../sql/driver-errors.js';
import { configurationErrors } from '../../error-messages.js';
import type { MysqlQueryableLike } from './client.js';
import { mysqlDialect } from './dialect.js';

/** The part of a `mysql2/promise` `Pool` a graph load uses: one connection taken for the load, given back after. */
export interface MysqlGraphPoolLike {
  getConnection(): Promise<MysqlQueryableLike & { release(): void; destroy(): void }>;
}

/** Where {@link mysqlGraphTarget} loads: a pool (a connection of its own, in a transaction of its own), or your connection. */
export type MysqlGraphTargetOptions =
  | {
      /** A `mysql2/promise` `Pool`: the load takes one connection and runs in a transaction of its own on it. */
      readonly pool: MysqlGraphPoolLike;
    }
  | {
      /** A `mysql2/promise` `Connection` or `PoolConnection` you hold: the load runs on it and leaves it open. */
      readonly connection: MysqlQueryableLike;
      /**
       * Whether `connection` is inside your transaction: the load then runs in a savepoint of it, so that a failed
       * load leaves your transaction as it was, and your commit or rollback decides for the rows.
       * @default false
       */
      readonly inTransaction?: boolean;
    };

/** More rows per INSERT buys little once the statement's own cost is spread thin. */
const MAX_ROWS = 1000;
/** Parameters per statement stay below the server's prepared-statement limit (65,535) if the driver prepares. */
const MAX_PARAMETERS = 60_000;

/**
 * A value as the driver binds it into the statement's text. mysql2 writes an object as `key = value` pairs and an
 * array as a list, so both go as JSON text (a `json` column takes it; booleans and Dates as the driver writes them).
 */
function bindable(value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || value instanceof Date || value instanceof Uint8Array) return value;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** About how many bytes a value takes in the statement's text (bytes as hex, text escaped at worst twice). */
function textBytes(value: unknown): number {
  if (value === null) return 4;
  if (typeof value === 'string') return value.length * 2 + 2;
  if (value instanceof Uint8Array) return value.length * 2 + 3;
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString().length + 2;
  return 28; // a Date, a boolean
}

function executorOf(connection: MysqlQueryableLike): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const [result] = await connection.query(sql, driverParams(params));
      if (Array.isArray(result)) return { rows: result as Row[], affectedRows: 0 };
      const affected = (result as { affectedRows?: unknown } | undefined)?.affectedRows;
      return { rows: [], affectedRows: typeof affected === 'number' ? affected : 0 };
    },
  };
}

/** Where each failed batch went wrong, found by trying its rows one at a time (a multi-row INSERT's error names no row). */
const places = new WeakMap<object, BulkErrorPlace>();

function insertWriter(
  executor: SqlExecutor,
  table: TableRef,
  columns: readonly string[],
  packetBytes: number,
): BulkTableWriter {
  const quote = mysqlDialect.quote;
  const target = `${table.schema === undefined ? '' : `${quote(table.schema)}.`}${quote(table.table)}`;
  const head = `insert into ${target} (${columns.map(quote).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const maxRows = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  // half the server's packet limit: the estimate of each row's text is rough
  const budget = Math.max(1024, Math.floor(packetBytes / 2) - head.length);
  const insert = (rows: readonly (readonly unknown[])[]) =>
    executor.query(
      head + Array<string>(rows.length).fill(tuple).join(', '),
      rows.flatMap((row) => row),
    );
  /** The row of `rows` (from `offset`) that fails alone, tried in a savepoint rolled back after. */
  const failingRow = async (rows: readonly (readonly unknown[])[], offset: number): Promise<number | undefined> => {
    await executor.query('savepoint hilo_graph_probe');
    try {
      for (let i = 0; i < rows.length; i++) {
        try {
          await insert([rows[i]!]);
        } catch {
          return offset + i;
        }
      }
      return undefined;
    } finally {
      await executor.query('rollback to savepoint hilo_graph_probe');
      await executor.query('release savepoint hilo_graph_probe');
    }
  };
  return {
    format: 'insert',
    async write(given) {
      const rows = given.map((row) => row.map(bindable));
      for (let offset = 0; offset < rows.length;) {
        let end = offset;
        let bytes = 0;
        while (end < rows.length && end - offset < maxRows) {
          const size = rows[end]!.reduce((sum: number, value) => sum + textBytes(value) + 2, 2);
          if (end > offset && bytes + size > budget) break;
          bytes += size;
          end++;
        }
        const chunk = rows.slice(offset, end);
        try {
          await insert(chunk);
        } catch (error) {
          // a lost connection leaves nothing to probe
          const row = isTransientError(error, mysqlDialect)
            ? undefined
            : await failingRow(chunk, offset).catch(() => undefined);
          if (typeof error === 'object' && error !== null && row !== undefined) places.set(error, { row });
          throw error;
        }
        offset = end;
      }
    },
  };
}

function bulkConnection(
  connection: MysqlQueryableLike,
  inTransaction: boolean,
  release: (broken: boolean) => void,
  packet: { bytes?: Promise<number> },
): BulkConnection {
  const executor = executorOf(connection);
  return {
    displayName: mysqlDialect.displayName,
    executor,
    inTransaction,
    // no deferrable constraints: a cycle of references is refused by the plan
    quote: mysqlDialect.quote,
    async tableWriter(table, columns) {
      const { rows } = await executor.query<{ c: string }>(
        'select column_name as c from information_schema.columns where table_schema = coalesce(?, database()) ' +
          'and table_name = ?',
        [table.schema ?? null, table.table],
      );
      if (rows.length === 0) throw configurationErrors.graphTableMissing(mysqlDialect.displayName, table);
      const names = new Set(rows.map((row) => String(row.c).toLowerCase()));
      for (const column of columns) {
        if (!names.has(column.toLowerCase())) throw configurationErrors.graphColumnMissing(table, column);
      }
      packet.bytes ??= executor
        .query<{ m: unknown }>('select @@max_allowed_packet as m')
        .then(({ rows: [row] }) => Number(row?.m ?? 16 << 20));
      return insertWriter(executor, table, columns, await packet.bytes);
    },
    locate: (error) => (typeof error === 'object' ? (places.get(error) ?? {}) : {}),
    isTransient: (error) => isTransientError(error, mysqlDialect),
    release: (broken) => Promise.resolve(release(broken)),
  };
}

/**
 * Where a graph load writes on MariaDB or MySQL (with `mysql2/promise`): multi-row INSERTs in one transaction, each
 * up to 1,000 rows and half the server's `max_allowed_packet`. Objects and arrays are written as JSON text. A row the
 * database refuses is found by trying its statement's rows one at a time in a savepoint. MariaDB has no deferrable
 * foreign keys, so a cycle of references between tables is refused before anything is written; a self-reference is
 * ordered by nesting. Pass it to {@link loadGraph}.
 *
 * @example
 * ```ts
 * import mysql from 'mysql2/promise';
 * const target = mysqlGraphTarget({ pool: mysql.createPool(process.env.DATABASE_URL!) });
 * ```
 */
export function mysqlGraphTarget(options: MysqlGraphTargetOptions): GraphTarget {
  // the server's packet limit, read once per target
  const packet: { bytes?: Promise<number> } = {};
  if ('pool' in options) {
    const { pool } = options;
    return {
      async open() {
        const connection = await pool.getConnection();
        return bulkConnection(
          connection,
          false,
          (broken) => (broken ? connection.destroy() : connection.release()),
          packet,
        );
      },
    };
  }
  const { connection, inTransaction = false } = options;
  return { open: () => Promise.resolve(bulkConnection(connection, inTransaction, () => undefined, packet)) };
}
