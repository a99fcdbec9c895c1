import type { DataSource } from 'typeorm';
import { sqliteClient, type SqlClient, type SqliteDatabaseLike } from 'hilo-core';
import { configurationErrors, sourceErrors } from './error-messages.js';

/** The part of a `better-sqlite3` `Database` used here (TypeORM's connection and hilo's own). */
interface BetterSqliteDatabase extends SqliteDatabaseLike {
  readonly name: string;
  readonly memory: boolean;
  readonly open: boolean;
  readonly inTransaction: boolean;
  pragma(source: string): unknown;
}

/** The part of TypeORM's `BetterSqlite3Driver` used here. */
interface BetterSqliteDriverLike {
  sqlite?: new (filename: string, options?: Record<string, unknown>) => BetterSqliteDatabase;
  databaseConnection?: BetterSqliteDatabase;
  options: {
    database?: string;
    timeout?: number;
    key?: string;
    prepareDatabase?: (db: unknown) => unknown;
  };
}

/**
 * TypeORM connections to SQLite files in this process that hilo serves. SQLite has one writer per file: a
 * transaction on one of them may hold the write lock, and this thread is the only one that can release it.
 */
const localConnections = new Set<BetterSqliteDatabase>();

const localTransactionOpen = (): boolean =>
  [...localConnections].some((connection) => connection.open && connection.inTransaction);

/** Where a better-sqlite3 DataSource's reservations run. */
export type SqliteReservations =
  { readonly kind: 'file'; readonly client: SqlClient; readonly release: () => void } | { readonly kind: 'memory' };

/** Whether `dataSource` is a TypeORM `better-sqlite3` DataSource. */
export const isBetterSqlite = (dataSource: DataSource): boolean => dataSource.options.type === 'better-sqlite3';

/**
 * Reservations for a `better-sqlite3` DataSource.
 *
 * - A file: a connection of hilo's own to the same file, opened with the DataSource's driver module, busy
 *   timeout (`timeout`, default 5 s), encryption `key` and `prepareDatabase` hook. TypeORM's single
 *   connection cannot serve: a reservation on it would join the caller's transaction and roll back with
 *   it. Other processes on the same file reserve through the same hi table, so keys never collide. Each
 *   reservation is one statement with a lock-aware busy timeout (hilo-core's `sqliteClient` with `lockHeldHere`).
 * - `:memory:`: no other connection can open that database and no other process can write it, so the
 *   hi table would have to live on TypeORM's own connection, inside the caller's transactions. The
 *   counter lives in this process instead (hilo-core's `privateDatabaseSource`), which is exactly as durable as the
 *   database itself.
 */
export async function sqliteReservations(dataSource: DataSource): Promise<SqliteReservations> {
  const driver = dataSource.driver as unknown as BetterSqliteDriverLike;
  const connection = driver.databaseConnection;
  if (!connection || !driver.sqlite) {
    throw configurationErrors.sqliteNotConnected();
  }
  if (connection.memory) return { kind: 'memory' };
  const busyTimeoutMs = driver.options.timeout ?? 5000;
  let db: BetterSqliteDatabase;
  try {
    db = new driver.sqlite(connection.name, { timeout: busyTimeoutMs, fileMustExist: true });
    if (driver.options.key !== undefined) db.pragma(`key = ${JSON.stringify(driver.options.key)}`);
    if (driver.options.prepareDatabase) await driver.options.prepareDatabase(db);
  } catch (error) {
    throw sourceErrors.cannotOpenSqliteFile(connection.name, error);
  }
  localConnections.add(connection);
  // While one of this process's TypeORM connections is inside a transaction it may hold the write lock, and
  // better-sqlite3 would wait for it by blocking the thread that has to release it: hilo-core's client then
  // fails the statement at once (retryable) and the generator retries later, asynchronously.
  const client = sqliteClient(db, { ownsDatabase: true, lockHeldHere: localTransactionOpen, busyTimeoutMs });
  return {
    kind: 'file',
    client,
    release: () => {
      localConnections.delete(connection);
      if (db.open) db.close();
    },
  };
}
