import { HiLoConfigurationError } from '../../errors.js';
import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { driverParams } from '../../sql/driver-params.js';
import { configurationErrors, sourceErrors } from '../../error-messages.js';

/** The part of a PGlite transaction (`db.transaction(tx => …)`) hilo uses. */
export interface PgliteTransactionLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
}

/**
 * The part of a PGlite instance (`new PGlite()` of `@electric-sql/pglite`, the database inside `prisma dev`) hilo
 * uses, declared here so that core never imports it.
 */
export interface PgliteLike extends PgliteTransactionLike {
  transaction<T>(work: (tx: PgliteTransactionLike) => Promise<T>): Promise<T>;
  /** Whether the database's one session is inside a transaction. */
  isInTransaction(): boolean;
}

/** Whether `value` looks like a PGlite instance (its one session is what the application uses too). */
export function isPglite(value: unknown): value is PgliteLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { isInTransaction?: unknown }).isInTransaction === 'function' &&
    typeof (value as { execProtocol?: unknown }).execProtocol === 'function'
  );
}

function executor(target: PgliteTransactionLike): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const result = await target.query<Row>(sql, driverParams(params));
      return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
    },
  };
}

/**
 * Wraps a PGlite instance (`@electric-sql/pglite`: PostgreSQL in the process, the database of `prisma dev`) as a
 * {@link SqlClient}. PGlite has one session, which the application's queries and transactions use too, so a
 * reservation can never be isolated from a transaction of the application: inside one it would wait for that
 * transaction, which waits for the keys. So:
 * - keys come from a sequence (the default on PostgreSQL): `nextval` is never rolled back; the table source, whose
 *   reservation a rolled-back transaction would undo, is refused;
 * - a reservation asked for while the application's transaction is open fails at once with a `HiLoSourceError`
 *   naming `warm()`/`ensure()`, which reserve before the transaction; keys already in hand are served there as
 *   anywhere.
 * The server is never checked (`serverCheckMs` does nothing): a database inside the process has no standby to fail
 * over to, and a check would take the one session from the application. `close()` leaves the instance open.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * const db = new PGlite();
 * const client = pgliteClient(db);
 * ```
 */
export function pgliteClient(db: PgliteLike): SqlClient {
  if (
    typeof db !== 'object' ||
    db === null ||
    typeof db.query !== 'function' ||
    typeof db.transaction !== 'function' ||
    typeof db.isInTransaction !== 'function'
  ) {
    throw HiLoConfigurationError.invalidOption('pgliteClient() db', 'a PGlite instance (`new PGlite()`)', db);
  }
  /** Transactions of this client now running: statements queued behind them wait for hilo, not the application. */
  let own = 0;
  const refuseApplicationTransaction = () => {
    if (own === 0 && db.isInTransaction()) throw sourceErrors.pgliteInTransaction();
  };
  const direct = executor(db);
  return {
    dialect: 'postgres',
    singleSession: true,
    inProcess: true,
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      refuseApplicationTransaction();
      return direct.query<Row>(sql, params);
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      refuseApplicationTransaction();
      own++;
      try {
        return await db.transaction((tx) => work(executor(tx)));
      } finally {
        own--;
      }
    },
    close: () => Promise.resolve(),
  };
}

/** Refuses a PGlite instance where a pool was expected (`pgClient(db)`), naming {@link pgliteClient}. */
export function refusePglite(given: unknown, where: string): void {
  if (isPglite(given)) throw configurationErrors.pgliteNotAPool(where);
}
