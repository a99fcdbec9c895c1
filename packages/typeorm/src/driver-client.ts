import type { DataSource } from 'typeorm';
import {
  HiLoConfigurationError,
  mysqlClient,
  pgClient,
  type MysqlCallbackPoolLike,
  type PgPoolLike,
  type SqlClient,
} from 'hilo-core';
import { dialectOf } from 'hilo-core/adapter-kit';

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
  const unsupported = () =>
    `hilo-typeorm takes reservations from postgres, mysql, mariadb and better-sqlite3 DataSources ` +
    `by itself, got type ${JSON.stringify(type)}; ` +
    'pass a `client` on a connection of its own (never the one your transactions use) to installHiLo().';
  const dialect = dialectOf(type, unsupported);
  if (dialect === 'postgres') {
    if (!driver.master) throw notConnected(type);
    return pgClient(driver.master as PgPoolLike);
  }
  if (dialect === 'mysql') {
    if (driver.poolCluster && !driver.pool) {
      throw new HiLoConfigurationError(
        'hilo-typeorm cannot take reservations from a MySQL/MariaDB replication pool cluster; pass `client: ' +
          'await connect(primaryUrl)` (from hilo-core) to installHiLo().',
      );
    }
    if (!driver.pool) throw notConnected(type);
    // a callback pool: mysql2's (TypeORM 1.x, and 0.3 without the `mysql` package) or, on TypeORM 0.3 with the
    // `mysql` package installed, that package's; hilo-core's client takes either
    return mysqlClient(driver.pool as MysqlCallbackPoolLike);
  }
  if (type === 'better-sqlite3') {
    throw new HiLoConfigurationError(
      'A better-sqlite3 DataSource has one connection, which your transactions use, so it cannot serve ' +
        "reservations; installHiLo() opens hilo's own connection to the file by itself, or pass `client: " +
        "await connect('sqlite:app.db')` (from hilo-core).",
    );
  }
  // SQLite through another TypeORM driver (`sqlite`, `sqljs`, …): hilo cannot open the file by itself
  throw new HiLoConfigurationError(unsupported());
}

function notConnected(type: string): HiLoConfigurationError {
  return new HiLoConfigurationError(
    `The ${type} DataSource has no connection pool yet; call installHiLo() after \`await dataSource.initialize()\`, ` +
      `or wrap the DataSource with withHiLo().`,
  );
}
