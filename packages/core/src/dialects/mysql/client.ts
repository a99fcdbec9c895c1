import { mysqlDialect } from './dialect.js';
import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { mustDropConnection } from '../../sql/driver-errors.js';
import { pooledClient } from '../../sql/session.js';
import { driverParams } from '../../sql/driver-params.js';

/** The part of a `mysql2/promise` connection hilo uses (declared here so core never imports `mysql2`). */
export interface MysqlQueryableLike {
  /** Resolves with `[rows, fields]` for SELECT, `[ResultSetHeader, undefined]` for INSERT/UPDATE. */
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
}

/** The part of a `mysql2/promise` `PoolConnection` hilo uses. */
export interface MysqlPoolConnectionLike extends MysqlQueryableLike {
  release(): void;
  destroy(): void;
  /** The driver's connection behind a promise wrapper made anew at each `getConnection()` (mysql2's), if any. */
  readonly connection?: object;
}

/** The part of a `mysql2/promise` `Pool` hilo uses. */
export interface MysqlPoolLike extends MysqlQueryableLike {
  getConnection(): Promise<MysqlPoolConnectionLike>;
  end(): Promise<void>;
}

/** A callback that receives a query's outcome: rows (or a result header) and fields. */
type QueryCallback = (error: unknown, result?: unknown, fields?: unknown) => void;

/** The part of a callback-style connection hilo uses: from the `mysql` package, or `mysql2`'s non-promise API. */
export interface MysqlCallbackConnectionLike {
  query(sql: string, values: unknown[], callback: QueryCallback): unknown;
  release(): void;
  destroy(): void;
}

/**
 * The part of a callback-style pool hilo uses: `require('mysql').createPool()` (what TypeORM 0.3 uses when the
 * `mysql` package is installed), or `require('mysql2').createPool()` (whose `promise()` is used instead).
 */
export interface MysqlCallbackPoolLike {
  query(sql: string, values: unknown[], callback: QueryCallback): unknown;
  getConnection(callback: (error: unknown, connection: MysqlCallbackConnectionLike) => void): void;
  end(callback?: (error?: unknown) => void): void;
}

function promised<T>(
  start: (callback: (error: unknown, value?: T, extra?: unknown) => void) => void,
): Promise<[T, unknown]> {
  return new Promise((resolve, reject) =>
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error, passed on as it came
    start((error, value, extra) => (error ? reject(error) : resolve([value as T, extra]))),
  );
}

/**
 * The promise API of any pool {@link mysqlClient} accepts: a `mysql2/promise` pool as it is, a `mysql2`
 * callback pool through its own `promise()`, a `mysql` package pool (callbacks only) wrapped here.
 */
function promisePool(pool: MysqlPoolLike | MysqlCallbackPoolLike): MysqlPoolLike {
  const withPromise = pool as { promise?: () => MysqlPoolLike };
  if (typeof withPromise.promise === 'function') return withPromise.promise();
  // a promise pool's getConnection() takes no argument; a callback pool's takes the callback
  if (pool.getConnection.length === 0) return pool as MysqlPoolLike;
  const callbacks: MysqlCallbackPoolLike = pool;
  return {
    query: (sql, values = []) => promised((done) => callbacks.query(sql, values, done)),
    getConnection: async () => {
      const [connection] = await promised<MysqlCallbackConnectionLike>((done) => callbacks.getConnection(done));
      return {
        query: (sql, values = []) => promised((done) => connection.query(sql, values, done)),
        release: () => connection.release(),
        destroy: () => connection.destroy(),
      };
    },
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error, passed on as it came
    end: () => new Promise<void>((resolve, reject) => callbacks.end((error) => (error ? reject(error) : resolve()))),
  };
}

/** Options of {@link mysqlClient}. */
export interface MysqlClientOptions {
  /**
   * Whether `close()` ends the pool. Leave it false for a pool your application shares.
   * @default false
   */
  readonly ownsPool?: boolean;
}

function executor(target: MysqlQueryableLike): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const [result] = await target.query(sql, driverParams(params));
      if (Array.isArray(result)) return { rows: result as Row[], affectedRows: 0 };
      const header = result as { affectedRows?: unknown; insertId?: unknown } | undefined;
      const insertId = header?.insertId;
      return {
        rows: [],
        affectedRows: typeof header?.affectedRows === 'number' ? header.affectedRows : 0,
        ...(typeof insertId === 'number' || typeof insertId === 'string' || typeof insertId === 'bigint'
          ? { insertId }
          : {}),
      };
    },
  };
}

/**
 * Wraps a MariaDB or MySQL pool as a {@link SqlClient}: a `mysql2/promise` pool, a `mysql2` callback pool, or
 * a pool of the `mysql` package. Each `query` runs in autocommit on a pooled connection; `transaction` takes a
 * connection of its own and destroys it if it broke.
 *
 * @example
 * ```ts
 * import mysql from 'mysql2/promise';
 * const client = mysqlClient(mysql.createPool({ uri: process.env.DATABASE_URL }));
 * ```
 */
export function mysqlClient(given: MysqlPoolLike | MysqlCallbackPoolLike, options: MysqlClientOptions = {}): SqlClient {
  const pool = promisePool(given);
  const mustDrop = (error: unknown) => mustDropConnection(error, mysqlDialect);
  return {
    dialect: 'mysql',
    ...pooledClient<MysqlPoolConnectionLike>({
      // each statement takes a connection (as the pool's own query() does), so that one that failed in a way that
      // must not reach the next statement is closed: lost, on a Galera node outside the Primary Component, or
      // abandoned by a timed-out attempt
      executor,
      acquire: () => pool.getConnection(),
      release: (connection, broken) => (broken ? connection.destroy() : connection.release()),
      run: (connection, sql) => connection.query(sql),
      begin: 'start transaction',
      isBroken: mustDrop,
      // the same connection each time the pool hands it out, behind the wrapper made for each getConnection()
      identity: (connection) => connection.connection ?? connection,
    }),
    async close(): Promise<void> {
      // a connection the network already broke is closed as far as we are concerned
      if (options.ownsPool) await pool.end().catch(() => undefined);
    },
  };
}
