import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { configurationErrors, sourceErrors, sourceUnavailableErrors } from '../../error-messages.js';
import { d1Client, isD1Binding } from './d1-client.js';

/** The part of a prepared statement hilo uses; `better-sqlite3` and `node:sqlite` both have it. */
export interface SqliteStatementLike {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number | bigint };
  /** `better-sqlite3`: whether the statement returns rows. */
  readonly reader?: boolean;
  /** `node:sqlite`: the statement's result columns (empty when it returns none). */
  columns?(): unknown[];
}

/**
 * The part of a `better-sqlite3` `Database` or a `node:sqlite` `DatabaseSync` hilo uses (declared here so
 * core never imports a driver).
 */
export interface SqliteDatabaseLike {
  prepare(sql: string): SqliteStatementLike;
  close(): unknown;
  /** `better-sqlite3`: a transaction is open on this connection. */
  readonly inTransaction?: boolean;
  /** `node:sqlite`: a transaction is open on this connection. */
  readonly isTransaction?: boolean;
}

/** Options of {@link sqliteClient}. */
export interface SqliteClientOptions {
  /**
   * Whether `close()` closes the database connection.
   * @default false
   */
  readonly ownsDatabase?: boolean;
  /**
   * Whether a connection of this process may be holding the file's write lock right now — typically
   * `() => ormConnection.inTransaction` for the application's own connection to the same file. SQLite has
   * one writer, and a synchronous driver waits for the lock by blocking the thread, so the holder (on the
   * same thread) could never commit: while this returns true, a statement that finds the file locked fails
   * at once (SQLITE_BUSY, retryable for `busyTimeoutMs`) and the generator retries it later, asynchronously,
   * when the holder may have committed. Otherwise statements wait up to `busyTimeoutMs` (right for locks other processes hold).
   * Giving it also says the application's connection shares this thread: `transaction()` then runs each
   * statement on its own and refuses a second one (see the client's `transaction`).
   * @default none: always wait up to the connection's busy timeout
   */
  readonly lockHeldHere?: () => boolean;
  /**
   * With `lockHeldHere`: the busy timeout, in milliseconds, statements wait while the lock is not held here;
   * while it may be, the generator retries a statement that found the file locked for as long, asynchronously.
   * @default 5000
   */
  readonly busyTimeoutMs?: number;
}

/** A SQLITE_BUSY error: another connection holds the write lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown; errcode?: unknown } | null)?.code;
  return (
    code === 'SQLITE_BUSY' ||
    (error as { errcode?: unknown } | null)?.errcode === 5 ||
    /database is locked/i.test(String((error as Error | null)?.message))
  );
}

/**
 * `db` whose busy timeout follows `heldHere`: 0 while a connection of this process may hold the write lock,
 * `busyTimeoutMs` otherwise; a busy error in the first case says who holds the lock and what to do.
 */
function lockAware(db: SqliteDatabaseLike, heldHere: () => boolean, busyTimeoutMs: number): SqliteDatabaseLike {
  let current = -1;
  return {
    prepare(sql: string): SqliteStatementLike {
      const here = heldHere();
      const wanted = here ? 0 : busyTimeoutMs;
      if (wanted !== current) {
        db.prepare(`pragma busy_timeout = ${wanted}`).all();
        current = wanted;
      }
      const statement = db.prepare(sql);
      if (!here) return statement;
      const explain = (error: unknown): never => {
        if (!isBusy(error)) throw error;
        // retried for as long as a statement would wait for another connection's lock, asynchronously; not
        // the whole retry budget: if the holder is this process's transaction, it may be awaiting this reservation
        throw sourceUnavailableErrors.sqliteLockHeldHere(busyTimeoutMs, error);
      };
      return {
        all: (...params: unknown[]) => {
          try {
            return statement.all(...params);
          } catch (error) {
            return explain(error);
          }
        },
        run: (...params: unknown[]) => {
          try {
            return statement.run(...params);
          } catch (error) {
            return explain(error);
          }
        },
        ...(statement.reader === undefined ? {} : { reader: statement.reader }),
        ...(typeof statement.columns === 'function' ? { columns: () => statement.columns!() } : {}),
      };
    },
    close: () => db.close(),
    get inTransaction() {
      return db.inTransaction;
    },
    get isTransaction() {
      return db.isTransaction;
    },
  };
}

function returnsRows(statement: SqliteStatementLike, sql: string): boolean {
  if (typeof statement.reader === 'boolean') return statement.reader;
  if (typeof statement.columns === 'function') return statement.columns().length > 0;
  return /^\s*(select|with|pragma|values)\b|\breturning\b/i.test(sql);
}

function sqliteParams(params: readonly unknown[] | undefined): unknown[] {
  return params === undefined ? [] : params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}

function run<Row>(db: SqliteDatabaseLike, sql: string, params?: readonly unknown[]): SqlResult<Row> {
  const statement = db.prepare(sql);
  const values = sqliteParams(params);
  if (returnsRows(statement, sql)) {
    const rows = statement.all(...values) as Row[];
    return { rows, affectedRows: /\breturning\b/i.test(sql) ? rows.length : 0 };
  }
  const { changes } = statement.run(...values);
  return { rows: [], affectedRows: Number(changes) };
}

/**
 * Wraps a `better-sqlite3` `Database` or a `node:sqlite` `DatabaseSync` as a {@link SqlClient}. SQLite has
 * one transaction per connection, so give hilo a connection of its own (`connect('sqlite:app.db')` opens
 * one with a busy timeout for multi-process use): a reservation refuses to run while a transaction is open
 * on this connection, since it would join it.
 *
 * Given a Cloudflare D1 binding (its type is not this one's, so from JavaScript or through a cast), it returns
 * {@link d1Client}`(binding)`, whose statements are D1's asynchronous ones. It delegates rather than refuses: the
 * binding says what it is (`batch()` and `exec()` beside `prepare()`, statements with `bind()` and `first()`), the
 * caller asked for a client on that database and gets one, and what D1 cannot do (a second statement in one
 * transaction) d1Client refuses with a typed error, never silently. Only the options of a SQLite file connection
 * (`lockHeldHere`, `busyTimeoutMs`, `ownsDatabase: true`) are refused with a `HiLoConfigurationError` naming d1Client.
 *
 * @throws HiLoConfigurationError when given a D1 binding with `lockHeldHere`, `busyTimeoutMs` or `ownsDatabase: true`
 * @example
 * ```ts
 * import Database from 'better-sqlite3';
 * const db = new Database('app.db');
 * db.pragma('busy_timeout = 5000');
 * const client = sqliteClient(db);
 * ```
 */
export function sqliteClient(database: SqliteDatabaseLike, options: SqliteClientOptions = {}): SqlClient {
  if (isD1Binding(database)) {
    for (const option of ['lockHeldHere', 'busyTimeoutMs', 'ownsDatabase'] as const) {
      if (options[option] !== undefined && options[option] !== false)
        throw configurationErrors.d1SqliteClientOption(option);
    }
    return d1Client(database);
  }
  const db = options.lockHeldHere ? lockAware(database, options.lockHeldHere, options.busyTimeoutMs ?? 5000) : database;
  // one connection: operations of this client run one after another, never interleaved
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work, work);
    tail = result.catch(() => undefined);
    return result;
  };
  const inTransaction = () => db.inTransaction === true || db.isTransaction === true;
  const refuseOpenTransaction = () => {
    if (inTransaction()) {
      throw sourceErrors.sqliteInTransaction();
    }
  };

  /**
   * With `lockHeldHere` an application connection shares this thread. A transaction that took the write lock
   * and then awaited would let that connection run a write in between, which waits for the lock by blocking
   * the thread, so the COMMIT that would release it never runs. So each statement runs alone, committing on
   * its own (the table source reserves with one `UPDATE … RETURNING`, which SQLite applies atomically), and a
   * second statement in one transaction is refused before it runs.
   */
  const statementByStatement = <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    refuseOpenTransaction();
    let statements = 0;
    return work({
      query: async <Row>(sql: string, params?: readonly unknown[]) => {
        statements += 1;
        if (statements > 1) {
          throw sourceErrors.sqliteOneStatementOnly();
        }
        return run<Row>(db, sql, params);
      },
    });
  };

  return {
    dialect: 'sqlite',
    query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      return exclusive(async () => run<Row>(db, sql, params));
    },
    atomic<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      // SQLite runs a lone statement as its own transaction, holding the write lock only while it runs
      return exclusive(async () => {
        refuseOpenTransaction();
        return run<Row>(db, sql, params);
      });
    },
    transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      if (options.lockHeldHere) return exclusive(async () => statementByStatement(work));
      return exclusive(async () => {
        refuseOpenTransaction();
        run(db, 'begin immediate');
        const tx: SqlExecutor = {
          query: async <Row>(sql: string, params?: readonly unknown[]) => run<Row>(db, sql, params),
        };
        try {
          const result = await work(tx);
          run(db, 'commit');
          return result;
        } catch (error) {
          if (inTransaction()) run(db, 'rollback');
          throw error;
        }
      });
    },
    async close(): Promise<void> {
      if (options.ownsDatabase) await exclusive(async () => void db.close());
    },
  };
}
