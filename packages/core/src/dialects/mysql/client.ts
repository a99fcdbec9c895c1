import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { isTransientDriverError } from '../../sql/driver-errors.js';
import { driverParams } from '../postgres/client.js';

/** The part of a `mysql2/promise` connection hilo uses (declared here so core never imports `mysql2`). */
export interface MysqlQueryableLike {
  /** Resolves with `[rows, fields]` for SELECT, `[ResultSetHeader, undefined]` for INSERT/UPDATE. */
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
}

/** The part of a `mysql2/promise` `PoolConnection` hilo uses. */
export interface MysqlPoolConnectionLike extends MysqlQueryableLike {
  release(): void;
  destroy(): void;
}

/** The part of a `mysql2/promise` `Pool` hilo uses. */
export interface MysqlPoolLike extends MysqlQueryableLike {
  getConnection(): Promise<MysqlPoolConnectionLike>;
  end(): Promise<void>;
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
        ...(typeof insertId === 'number' || typeof insertId === 'string' || typeof insertId === 'bigint' ? { insertId } : {}),
      };
    },
  };
}

/**
 * Wraps a `mysql2/promise` pool (MariaDB or MySQL) as a {@link SqlClient}. Each `query` runs in autocommit
 * on a pooled connection; `transaction` takes a connection of its own and destroys it if it broke.
 *
 * @example
 * ```ts
 * import mysql from 'mysql2/promise';
 * const client = mysqlClient(mysql.createPool({ uri: process.env.DATABASE_URL }));
 * ```
 */
export function mysqlClient(pool: MysqlPoolLike, options: MysqlClientOptions = {}): SqlClient {
  const direct = executor(pool);
  return {
    dialect: 'mysql',
    query: direct.query,
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const connection = await pool.getConnection();
      let broken = false;
      try {
        await connection.query('start transaction');
        let result: T;
        try {
          result = await work(executor(connection));
        } catch (error) {
          await connection.query('rollback').catch(() => {
            broken = true;
          });
          throw error;
        }
        await connection.query('commit');
        return result;
      } catch (error) {
        if (isTransientDriverError(error, 'mysql')) broken = true;
        throw error;
      } finally {
        if (broken) connection.destroy();
        else connection.release();
      }
    },
    async close(): Promise<void> {
      // a connection the network already broke is closed as far as we are concerned
      if (options.ownsPool) await pool.end().catch(() => undefined);
    },
  };
}
