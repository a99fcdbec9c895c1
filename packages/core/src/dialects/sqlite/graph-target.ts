import type { BulkConnection, BulkErrorPlace, BulkTableWriter, GraphTarget } from '../../sql/bulk.js';
import type { TableRef } from '../../sql/catalog.js';
import type { SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { isTransientError } from '../../sql/driver-errors.js';
import { configurationErrors } from '../../error-messages.js';
import type { SqliteDatabaseLike, SqliteStatementLike } from './client.js';
import { sqliteDialect } from './dialect.js';

/** Options of {@link sqliteGraphTarget}. */
export interface SqliteGraphTargetOptions {
  /**
   * A `better-sqlite3` `Database` or a `node:sqlite` `DatabaseSync`. A load runs in a transaction of its own on it,
   * or in a savepoint when the connection is inside your transaction (its commit or rollback then decides).
   */
  readonly database: SqliteDatabaseLike;
}

/** SQLite's smallest limit on bound parameters per statement (999 before 3.32): a multi-row INSERT stays below it. */
const MAX_PARAMETERS = 999;
/** More rows per INSERT buys nothing once the statement's own cost is spread thin. */
const MAX_ROWS = 200;

/** A value as SQLite's drivers bind it: booleans as 0/1, Dates as ISO text, objects and arrays as JSON. */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array || typeof value !== 'object') return value;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function executorOf(db: SqliteDatabaseLike): SqlExecutor {
  return {
    query<Row>(sql: string, params: readonly unknown[] = []): Promise<SqlResult<Row>> {
      const statement = db.prepare(sql);
      const returnsRows = statement.reader ?? (statement.columns?.().length ?? 0) > 0;
      if (returnsRows) return Promise.resolve({ rows: statement.all(...params) as Row[], affectedRows: 0 });
      const { changes } = statement.run(...params);
      return Promise.resolve({ rows: [], affectedRows: Number(changes) });
    },
  };
}

/** Where each failed batch went wrong, found by trying its rows one at a time (SQLite's errors name no row). */
const places = new WeakMap<object, BulkErrorPlace>();

function insertWriter(db: SqliteDatabaseLike, table: TableRef, columns: readonly string[]): BulkTableWriter {
  const quote = sqliteDialect.quote;
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const text = (rows: number): string =>
    `insert into ${quote(table.table)} (${columns.map(quote).join(', ')}) values ${Array(rows).fill(tuple).join(', ')}`;
  const statements = new Map<number, SqliteStatementLike>();
  const statement = (rows: number): SqliteStatementLike => {
    let found = statements.get(rows);
    if (found === undefined) {
      found = db.prepare(text(rows));
      statements.set(rows, found);
    }
    return found;
  };
  /** The row of `rows` (from `offset`) that fails alone, tried in a savepoint rolled back after. */
  const failingRow = (rows: readonly (readonly unknown[])[], offset: number): number | undefined => {
    db.prepare('savepoint hilo_graph_probe').run();
    try {
      for (let i = 0; i < rows.length; i++) {
        try {
          statement(1).run(...rows[i]!.map(bindable));
        } catch {
          return offset + i;
        }
      }
      return undefined;
    } finally {
      db.prepare('rollback to savepoint hilo_graph_probe').run();
      db.prepare('release savepoint hilo_graph_probe').run();
    }
  };
  return {
    format: 'insert',
    // async so that a driver error is rethrown as it is (node:sqlite's may come from another realm than Error)
    async write(rows) {
      for (let offset = 0; offset < rows.length; offset += perStatement) {
        const chunk = rows.slice(offset, offset + perStatement);
        try {
          statement(chunk.length).run(...chunk.flatMap((row) => row.map(bindable)));
        } catch (error) {
          const row = failingRow(chunk, offset);
          if (typeof error === 'object' && error !== null && row !== undefined) places.set(error, { row });
          throw error;
        }
      }
    },
  };
}

function bulkConnection(db: SqliteDatabaseLike): BulkConnection {
  const executor = executorOf(db);
  return {
    displayName: sqliteDialect.displayName,
    executor,
    inTransaction: db.inTransaction === true || db.isTransaction === true,
    // foreign keys checked at the commit, for this transaction only
    deferConstraints: 'pragma defer_foreign_keys = on',
    quote: sqliteDialect.quote,
    async tableWriter(table, columns) {
      const { rows } = await executor.query<{ name: string }>(`select name from pragma_table_info(?)`, [table.table]);
      if (rows.length === 0) throw configurationErrors.graphTableMissing(sqliteDialect.displayName, table);
      const names = new Set(rows.map((row) => row.name.toLowerCase()));
      for (const column of columns) {
        if (!names.has(column.toLowerCase())) throw configurationErrors.graphColumnMissing(table, column);
      }
      return insertWriter(db, table, columns);
    },
    locate: (error) => (typeof error === 'object' ? (places.get(error) ?? {}) : {}),
    isTransient: (error) => isTransientError(error, sqliteDialect),
    release: () => Promise.resolve(),
  };
}

/**
 * Where a graph load writes on SQLite (`better-sqlite3` or `node:sqlite`): prepared multi-row INSERTs (up to 200 rows
 * each, under SQLite's 999-parameter limit) in one transaction. Booleans are written as 0/1, Dates as ISO text,
 * objects and arrays as JSON text. A row the database refuses is found by trying its statement's rows one at a time.
 * Pass it to {@link loadGraph}.
 *
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const target = sqliteGraphTarget({ database: new Database('shop.db') });
 * ```
 */
export function sqliteGraphTarget(options: SqliteGraphTargetOptions): GraphTarget {
  const { database } = options;
  return { open: () => Promise.resolve(bulkConnection(database)) };
}
