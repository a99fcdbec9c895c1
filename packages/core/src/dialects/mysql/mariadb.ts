import { HiLoConfigurationError } from '../../errors.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { mysqlClient, type MysqlClientOptions, type MysqlQueryableLike } from './client.js';

/** The part of a connection of the `mariadb` package (MariaDB Connector/Node.js) hilo uses. */
export interface MariadbQueryableLike {
  /** Resolves with the rows of a SELECT (an array), or the OK packet (`affectedRows`, `insertId`) of an UPDATE. */
  query(sql: string, values?: unknown[]): Promise<unknown>;
}

/** The part of a `mariadb` `PoolConnection` hilo uses. */
export interface MariadbPoolConnectionLike extends MariadbQueryableLike {
  release(): Promise<void> | void;
  destroy(): unknown;
  /** With a timeout, closes the connection's socket at once when no answer came within it. */
  ping(timeout?: number): Promise<void>;
}

/**
 * The part of a `mariadb` `Pool` (`mariadb.createPool(…)`, what Prisma's `@prisma/adapter-mariadb` runs on)
 * hilo uses, declared here so that core never imports it.
 */
export interface MariadbPoolLike extends MariadbQueryableLike {
  getConnection(): Promise<MariadbPoolConnectionLike>;
  end(): Promise<void>;
}

/** Options of {@link mariadbClient}: `ownsPool`, as for {@link mysqlClient}. */
export type MariadbClientOptions = MysqlClientOptions;

/**
 * Drops a connection hilo gave up on, whose statement may still be running (an attempt that timed out, a link that
 * went dead). The connector's `destroy()` with a statement in flight opens a second connection to `KILL` the first,
 * and when that `KILL` fails (the link broke again, the thread had already ended) its rejection is left unhandled:
 * an app on Node's defaults crashes (mariadb 3.4 to 3.5.4). A ping with a timeout is the connector's public call that
 * closes the socket itself when no answer comes, with no second connection; once it has settled nothing is in flight,
 * and `destroy()` only takes the connection out of its pool. The server ends the session when it sees the socket
 * close, as it does for mysql2's `destroy()`.
 */
function destroyWithoutKill(connection: MariadbPoolConnectionLike): void {
  let pinged: Promise<unknown>;
  try {
    pinged = connection.ping(1);
  } catch (error) {
    pinged = Promise.reject(error);
  }
  void pinged
    .catch(() => undefined)
    .then(() => {
      try {
        connection.destroy();
      } catch {
        // already closed: nothing left to drop
      }
    });
}

/** `mysql2/promise`'s `[result, fields]` for a `mariadb` query's result. */
function asMysql2(target: MariadbQueryableLike): MysqlQueryableLike {
  return { query: async (sql, values) => [await target.query(sql, values), undefined] };
}

/**
 * Wraps a pool of the `mariadb` package (MariaDB Connector/Node.js, the driver of Prisma's
 * `@prisma/adapter-mariadb`) as a {@link SqlClient}, so that such an app needs no `mysql2`. Each `query` runs in
 * autocommit on a pooled connection; `transaction` takes a connection of its own and destroys it if it broke.
 * The pool must keep the connector's default result shape (no `rowsAsArray`, `metaAsArray` or `nestTables`).
 *
 * @example
 * ```ts
 * import mariadb from 'mariadb';
 * const client = mariadbClient(mariadb.createPool(process.env.DATABASE_URL!));
 * ```
 */
export function mariadbClient(pool: MariadbPoolLike, options: MariadbClientOptions = {}): SqlClient {
  if (
    typeof pool !== 'object' ||
    pool === null ||
    typeof pool.query !== 'function' ||
    typeof pool.getConnection !== 'function'
  ) {
    throw HiLoConfigurationError.invalidOption(
      'mariadbClient() pool',
      'a pool of the `mariadb` package (`mariadb.createPool(url)`)',
      pool,
    );
  }
  return mysqlClient(
    {
      ...asMysql2(pool),
      getConnection: async () => {
        const connection = await pool.getConnection();
        return {
          ...asMysql2(connection),
          connection,
          // the connector's release() returns a promise: a failure there leaves nothing for hilo to do
          release: () => void Promise.resolve(connection.release()).catch(() => undefined),
          destroy: () => destroyWithoutKill(connection),
        };
      },
      end: () => pool.end(),
    },
    options,
  );
}
