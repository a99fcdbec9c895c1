import { refusePglite } from './pglite.js';
import { postgresDialect } from './dialect.js';
import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { isTransientError } from '../../sql/driver-errors.js';
import { pooledClient } from '../../sql/session.js';
import { driverParams } from '../../sql/driver-params.js';
import { explainPoolerError, isStatementPooling } from './pooler.js';

/** The part of a `pg` query result hilo reads. */
export interface PgQueryResultLike {
  readonly rows: unknown[];
  readonly rowCount: number | null;
}

/** The part of a `pg` `PoolClient` hilo uses (declared here so core never imports `pg`). */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  /** `release(true)` or `release(error)` destroys the connection instead of returning it to the pool. */
  release(destroy?: boolean | Error): void;
}

/** The part of a `pg` `Pool` hilo uses. */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<PgQueryResultLike>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
}

/** Options of {@link pgClient}. */
export interface PgClientOptions {
  /**
   * Whether `close()` ends the pool. Leave it false for a pool your application shares.
   * @default false
   */
  readonly ownsPool?: boolean;
}

/** Where node-postgres keeps a client's socket (not part of its documented API, so every step is optional). */
interface PgSocketHolder {
  readonly connection?: { readonly stream?: { destroy?(): void } };
}

function executor(target: Pick<PgPoolLike, 'query'>): SqlExecutor {
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const result = await target.query(sql, driverParams(params));
      const rows = (Array.isArray(result.rows) ? result.rows : []) as Row[];
      return { rows, affectedRows: result.rowCount ?? 0 };
    },
  };
}

/**
 * Wraps a `pg` `Pool` as a {@link SqlClient}. Each `query` runs in autocommit on a pooled connection;
 * `transaction` takes a connection of its own. Attach an `error` listener to your pool (as `pg` asks) so an
 * idle connection killed by the server does not crash the process.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * const client = pgClient(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * ```
 */
export function pgClient(pool: PgPoolLike, options: PgClientOptions = {}): SqlClient {
  refusePglite(pool, 'pgClient()');
  const pooled = pooledClient<PgPoolClientLike>({
    executor,
    acquire: () => pool.connect(),
    release: (connection, broken) => {
      connection.release(broken ? true : undefined);
      // release(true) ends the connection politely, which a link that swallows traffic never completes: the socket
      // would stay open (and keep the process alive) until the system gives up on it
      if (broken) (connection as PgSocketHolder).connection?.stream?.destroy?.();
    },
    run: (connection, sql) => connection.query(sql),
    begin: 'begin',
    // PgBouncer closes the connection after refusing a transaction in statement mode: not retried, but dropped
    isBroken: (error) => isTransientError(error, postgresDialect) || isStatementPooling(error),
  });
  return {
    dialect: 'postgres',
    ...pooled,
    // PgBouncer in statement mode refuses BEGIN: say so, naming the setting, instead of "could not reach"
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      try {
        return await pooled.transaction(work);
      } catch (error) {
        throw explainPoolerError(error);
      }
    },
    async close(): Promise<void> {
      // a connection the network already broke is closed as far as we are concerned
      if (options.ownsPool) await pool.end().catch(() => undefined);
    },
  };
}
