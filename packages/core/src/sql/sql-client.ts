/** The databases hilo speaks to. `mysql` covers MariaDB and MySQL. */
export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** Rows a statement returned, and how many rows it changed. */
export interface SqlResult<Row> {
  readonly rows: Row[];
  /** Rows changed by INSERT/UPDATE/DELETE; 0 for SELECT. */
  readonly affectedRows: number;
  /**
   * MySQL/MariaDB: the OK packet's last insert id, which `UPDATE … SET v = LAST_INSERT_ID(expr)` sets to
   * `expr` — the new value in the same round trip. Absent when the driver does not report it.
   */
  readonly insertId?: number | string | bigint;
}

/** Something that runs one SQL statement with positional parameters (`$1` on PostgreSQL, `?` elsewhere). */
export interface SqlExecutor {
  /** Runs `sql` with `params` and resolves with its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
}

/**
 * The driver-free shape of a database connection pool that hi sources use. Adapters wrap their ORM's
 * driver in it; {@link pgClient}, {@link mysqlClient}, {@link sqliteClient}, {@link d1Client} and {@link connect} build
 * one.
 *
 * Statements through `query` run in autocommit on a pooled connection, never on a caller's transaction.
 */
export interface SqlClient extends SqlExecutor {
  /** Which SQL dialect the sources must speak. */
  readonly dialect: SqlDialect;
  /**
   * Runs `work` inside a transaction on one connection of its own; commits when `work` resolves, rolls
   * back when it rejects.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Optional: runs one statement as a transaction of its own, and refuses (like {@link transaction}) when
   * the connection is already inside one. Sources prefer it for single-statement reservations where a
   * transaction held across `await`s would keep a lock longer than the statement (SQLite).
   */
  atomic?<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
  /**
   * Optional: runs `statements`, known up front, as one transaction of their own: all of them or none. Clients whose
   * database has no interactive transactions give it ({@link d1Client}: D1's `batch()`, where `transaction` runs one
   * statement); hilo then installs its key guard with it.
   */
  batch?(
    statements: readonly { readonly sql: string; readonly params?: readonly unknown[] }[],
  ): Promise<SqlResult<Record<string, unknown>>[]>;
  /**
   * Optional: runs `work` with every statement this client sends from inside it (`query`, `transaction`,
   * `atomic`, across `await`s) on one pooled connection, taken once. Verified reservations use it so that the
   * reservation and its probes need one connection of a pool they may share with the application. Clients
   * without a pool (SQLite) leave it out.
   */
  session?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Optional: the client has one session, shared with the application (PGlite): a reservation can never be isolated
   * from the application's transaction, so only sources whose reservations no rollback undoes (sequences) run on it.
   */
  readonly singleSession?: boolean;
  /**
   * Optional: the database runs inside this process (PGlite): it has no standby and no failover, so the server it
   * answers from is never checked (a check would only take the one session from the application).
   */
  readonly inProcess?: boolean;
  /** Releases what this client owns (a pool it created from a URL); leaves a pool passed in alone. */
  close(): Promise<void>;
}
