import { HiLoConfigurationError } from '../../errors.js';
import { explainPoolerError } from './pooler.js';
import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { driverParams } from '../../sql/driver-params.js';
import { configurationErrors } from '../../error-messages.js';

/** The rows a postgres.js query resolves to: an array with the number of rows the statement touched. */
export interface PostgresJsRowsLike extends ReadonlyArray<unknown> {
  readonly count: number | null;
}

/** The part of a postgres.js transaction (`sql.begin(tx => …)`) hilo uses. */
export interface PostgresJsTransactionLike {
  unsafe(query: string, parameters?: unknown[]): PromiseLike<PostgresJsRowsLike>;
}

/**
 * The part of a postgres.js `sql` instance (the `postgres` package, `postgres(url)`) hilo uses, declared here
 * so that core never imports it.
 */
export interface PostgresJsSqlLike extends PostgresJsTransactionLike {
  begin<T>(work: (tx: PostgresJsTransactionLike) => Promise<T>): Promise<unknown>;
  end(options?: { timeout?: number }): Promise<void>;
  /** postgres.js keeps its resolved options here; hilo reads `transform` to refuse renamed columns. */
  readonly options?: {
    readonly transform?: {
      readonly column?: { readonly from?: unknown };
      readonly value?: { readonly from?: unknown };
      readonly row?: { readonly from?: unknown };
    };
  };
}

/** Options of {@link postgresJsClient}. */
export interface PostgresJsClientOptions {
  /**
   * Whether `close()` ends the `sql` instance (`sql.end()`). Leave it false for an instance your application
   * shares.
   * @default false
   */
  readonly ownsSql?: boolean;
  /**
   * Seconds `close()` lets running queries finish before it closes the connections anyway (postgres.js'
   * `sql.end({ timeout })`); only with `ownsSql`.
   * @default 5
   */
  readonly closeTimeoutSeconds?: number;
}

function executor(target: PostgresJsTransactionLike): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const rows = await target.unsafe(sql, driverParams(params));
      return { rows: [...rows] as Row[], affectedRows: rows.count ?? 0 };
    },
  };
}

/** Refuses an instance whose `transform` option renames columns or rewrites values or rows: hilo reads both. */
function refuseTransforms(sql: PostgresJsSqlLike): void {
  const transform = sql.options?.transform;
  const set = (['column', 'value', 'row'] as const).filter((part) => typeof transform?.[part]?.from === 'function');
  if (set.length === 0) return;
  throw configurationErrors.postgresJsTransform(set);
}

/**
 * Wraps a postgres.js `sql` instance (the `postgres` package) as a {@link SqlClient}, so that an app that talks
 * to PostgreSQL through postgres.js (Drizzle's `drizzle-orm/postgres-js`, Kysely's postgres.js dialect) needs
 * no second driver. Each `query` runs in autocommit on one of the instance's connections; `transaction` runs
 * in `sql.begin()`. The instance must not rename columns (`transform`); its notices go where its `onnotice`
 * sends them (postgres.js prints them by default, e.g. for `create sequence if not exists`).
 *
 * @example
 * ```ts
 * import postgres from 'postgres';
 * const sql = postgres(process.env.DATABASE_URL!);
 * const client = postgresJsClient(sql);
 * ```
 */
export function postgresJsClient(sql: PostgresJsSqlLike, options: PostgresJsClientOptions = {}): SqlClient {
  if (typeof sql !== 'function' && (typeof sql !== 'object' || sql === null)) {
    throw HiLoConfigurationError.invalidOption(
      'postgresJsClient() sql',
      'a postgres.js instance (`postgres(url)`)',
      sql,
    );
  }
  if (typeof sql.unsafe !== 'function' || typeof sql.begin !== 'function') {
    throw HiLoConfigurationError.invalidOption(
      'postgresJsClient() sql',
      'a postgres.js instance with unsafe() and begin() (`postgres(url)`, not a transaction or a reserved connection)',
      sql,
    );
  }
  refuseTransforms(sql);
  const direct = executor(sql);
  return {
    dialect: 'postgres',
    query: direct.query,
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      try {
        return (await sql.begin((tx) => work(executor(tx)))) as T;
      } catch (error) {
        throw explainPoolerError(error);
      }
    },
    async close(): Promise<void> {
      if (options.ownsSql) await sql.end({ timeout: options.closeTimeoutSeconds ?? 5 }).catch(() => undefined);
    },
  };
}
