import { HiLoConfigurationError, type HiLoHint } from '../errors.js';
import { abortable } from '../sql/abortable.js';
import { isDuplicate } from '../sql/driver-errors.js';
import { toHiLoError } from '../operations/driver-errors.js';
import type { SqlClient, SqlDialect, SqlExecutor } from '../sql/sql-client.js';
import type { HiSource } from '../engine/types.js';
import { DIALECTS } from '../dialects/index.js';
import { catalogOf } from './catalogs.js';

/**
 * What every preset returns: a source that reads and writes the other system's schema with its formula,
 * and the block size that matches the other system's increment (pass both to `createHiLoGenerator`).
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...efCorePreset(client), adaptive: false });
 * ```
 */
export interface InteropPreset {
  /** The hi source speaking the other system's schema. */
  readonly source: HiSource;
  /** The other system's increment (keys per database round trip); use it as the generator's `blockSize`. */
  readonly blockSize: number;
}

/**
 * Throws a `HiLoConfigurationError` unless the client speaks one of `supported` (the other system's own
 * schema exists only there: EF Core's Npgsql provider and Marten are PostgreSQL-only).
 */
export function requireDialect(client: SqlClient, preset: string, supported: readonly SqlDialect[]): SqlDialect {
  const dialect = (client as { dialect?: unknown } | null | undefined)?.dialect;
  if (!(supported as readonly unknown[]).includes(dialect)) {
    const names = supported.map((d) => DIALECTS[d].displayName).join(' or ');
    const got =
      typeof dialect === 'string' && dialect in DIALECTS
        ? DIALECTS[dialect as SqlDialect].displayName
        : JSON.stringify(dialect);
    throw new HiLoConfigurationError(
      `The ${preset} preset supports ${names} only (that is where ${preset} keeps its hi/lo state), got a client for ${got}. ` +
        `Pass a client from connect() with a ${supported.map((d) => DIALECTS[d].urlExample).join(' or ')} URL.`,
    );
  }
  return dialect as SqlDialect;
}

/** Throws unless the client speaks PostgreSQL. */
export function requirePostgres(client: SqlClient, preset: string): void {
  requireDialect(client, preset, ['postgres']);
}

/**
 * `create table if not exists`, tolerating PostgreSQL's catalog race (the loser of two concurrent creates
 * sees a duplicate error although the table then exists).
 */
export async function createTableIfMissing(client: SqlClient, ddl: string): Promise<void> {
  try {
    await client.query(ddl);
  } catch (error) {
    if (!isDuplicate(error, DIALECTS[client.dialect])) throw error;
  }
}

/**
 * Runs `work` in a transaction that holds an exclusive lock named after `table`, so "insert the row unless
 * it exists" cannot race on a table without a key to conflict on (PostgreSQL: a table lock; MariaDB: a
 * named lock held for the transaction).
 */
export function withTableLock<T>(client: SqlClient, table: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return catalogOf(client).withTableLock(client, table, work);
}

/**
 * The hint for another system's object that does not exist: how that system creates it (`howTheyCreate`),
 * or, for library callers, `create: true` (`creates`: what that option would create, when worth saying).
 */
export function createItHint(howTheyCreate: string, creates?: string): HiLoHint {
  const cli = howTheyCreate.replace(/[.;]$/, '');
  return {
    library: `${cli}, or pass \`create: true\`${creates === undefined ? '' : ` (${creates})`}.`,
    cli: `${cli}.`,
  };
}

/** Runs one reservation with the signal honoured and driver errors mapped to hilo's typed errors. */
export async function guarded<T>(
  client: SqlClient,
  signal: AbortSignal | undefined,
  action: string,
  missingHint: HiLoHint | undefined,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await abortable(work(), signal, action);
  } catch (error) {
    throw toHiLoError(error, {
      dialect: client.dialect,
      action,
      ...(missingHint === undefined ? {} : { missingHint }),
    });
  }
}
