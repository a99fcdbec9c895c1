/**
 * Every use hilo-drizzle makes of Drizzle beyond its documented API, in one file: the connection a Drizzle
 * transaction runs on, which a graph load inside that transaction must write on. Drizzle keeps it in the
 * transaction's session (`tx.session.client`: the pool connection node-postgres or mysql2 took for the transaction),
 * which its types declare private. It is read only for a transaction, only on the drizzle-orm releases hilo-drizzle
 * is tested with, and its shape is checked before use: anything else is refused with a `HiLoConfigurationError`
 * naming the way round it. A database (not a transaction) needs nothing private: its client is the public `$client`.
 */
import { entityKind } from 'drizzle-orm';
import { npmVersion } from 'drizzle-orm/version';
import {
  mysqlGraphTarget,
  pgGraphTarget,
  sqliteGraphTarget,
  type GraphTarget,
  type MysqlGraphPoolLike,
  type MysqlQueryableLike,
  type PgGraphConnectionLike,
  type PgGraphPoolLike,
  type SqliteDatabaseLike,
} from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/** The drizzle-orm releases whose transactions keep their connection in `session.client` (the peer range). */
const TESTED = /^(0\.(3[6-9]|4[0-5])\.\d+|1\.0\.0-beta\.24|1\.0\.0-rc\.5)$/;

type Queryable = { query?: unknown; promise?: () => unknown; getConnection?: unknown; idleCount?: unknown };

/**
 * Whether a graph load on `db` holds the database's one write lock (SQLite) while it runs: hilo, reserving on a
 * connection of its own, cannot reserve then.
 */
export const holdsWriteLock = (db: object): boolean => kindOf(db) === 'BetterSQLite3Database';

/** Drizzle's name for the class of `db` (`NodePgDatabase`, `MySql2Transaction`, …), from its public `entityKind`. */
function kindOf(db: unknown): string | undefined {
  const kind = (db as { constructor?: Record<symbol, unknown> } | null)?.constructor?.[entityKind];
  return typeof kind === 'string' ? kind : undefined;
}

/** The connection of a Drizzle transaction, checked: a client with `query()`. */
function transactionClient(tx: object, kind: string): Queryable {
  const version = String(npmVersion);
  if (!TESTED.test(version)) throw configurationErrors.graphTransactionShape(kind, version, 'an untested release');
  const client = (tx as { session?: { client?: Queryable } }).session?.client;
  if (typeof client?.query !== 'function')
    throw configurationErrors.graphTransactionShape(kind, version, 'its session has no client with query()');
  return client;
}

/**
 * Where a graph load on Drizzle's `db` writes: a node-postgres pool or client (binary COPY), a mysql2 pool or
 * connection, a better-sqlite3 database; inside a Drizzle transaction, its connection, in a savepoint.
 */
export function graphTargetOf(db: object): GraphTarget {
  const kind = kindOf(db) ?? `${String(db?.constructor?.name)}, not a Drizzle database`;
  const client = (db as { $client?: Queryable }).$client;
  switch (kind) {
    case 'NodePgDatabase':
      return typeof client?.idleCount === 'number'
        ? pgGraphTarget({ pool: client as unknown as PgGraphPoolLike })
        : pgGraphTarget({ connection: client as unknown as PgGraphConnectionLike });
    case 'NodePgTransaction':
      return pgGraphTarget({ connection: transactionClient(db, kind) as PgGraphConnectionLike, inTransaction: true });
    case 'MySql2Database': {
      // a callback-style pool or connection (`mysql2`, not `mysql2/promise`) has the promise one behind promise()
      const promised = (typeof client?.promise === 'function' ? client.promise() : client) as Queryable;
      return typeof promised.getConnection === 'function'
        ? mysqlGraphTarget({ pool: promised as MysqlGraphPoolLike })
        : mysqlGraphTarget({ connection: promised as MysqlQueryableLike });
    }
    case 'MySql2Transaction':
      return mysqlGraphTarget({ connection: transactionClient(db, kind) as MysqlQueryableLike, inTransaction: true });
    case 'BetterSQLite3Database':
      return sqliteGraphTarget({ database: client as unknown as SqliteDatabaseLike });
    case 'BetterSQLiteTransaction':
      throw configurationErrors.graphSqliteTransaction();
    default:
      throw configurationErrors.graphUnsupportedDriver(kind);
  }
}
