import type { DataSource } from 'typeorm';
import { mysqlClient, pgClient, type MysqlCallbackPoolLike, type PgPoolLike, type SqlClient } from 'hilo-core';
import { dialectOf } from 'hilo-core/adapter-kit';
import { configurationErrors, unsupportedDataSourceMessage } from './error-messages.js';

/**
 * Turns an initialized DataSource's driver pool into the `SqlClient` hi sources use: PostgreSQL's master
 * pool, MariaDB/MySQL's pool (of the `mysql2` or the `mysql` package). Reservations take a pooled connection
 * of their own and commit at once, so they never join a caller's transaction (a transaction holds a
 * connection checked out of the same pool).
 * The pool stays TypeORM's: `destroy()` closes it.
 * @example
 * ```ts
 * const client = dataSourceClient(dataSource);
 * ```
 */
export function dataSourceClient(dataSource: DataSource): SqlClient {
  const type = dataSource.options.type;
  const driver = dataSource.driver as unknown as { master?: unknown; pool?: unknown; poolCluster?: unknown };
  const dialect = dialectOf(type, () => unsupportedDataSourceMessage(type));
  if (dialect === 'postgres') {
    if (!driver.master) throw configurationErrors.poolNotConnected(type);
    return pgClient(driver.master as PgPoolLike);
  }
  if (dialect === 'mysql') {
    if (driver.poolCluster && !driver.pool) {
      throw configurationErrors.poolCluster();
    }
    if (!driver.pool) throw configurationErrors.poolNotConnected(type);
    // a callback pool: mysql2's (TypeORM 1.x, and 0.3 without the `mysql` package) or, on TypeORM 0.3 with the
    // `mysql` package installed, that package's; hilo-core's client takes either
    return mysqlClient(driver.pool as MysqlCallbackPoolLike);
  }
  if (type === 'better-sqlite3') {
    throw configurationErrors.sqliteConnectionShared();
  }
  // SQLite through another TypeORM driver (`sqlite`, `sqljs`, …): hilo cannot open the file by itself
  throw configurationErrors.unsupportedDataSource(type);
}
