import type { HiLoHint } from '../errors.js';
import { abortable } from '../sql/abortable.js';
import { isDuplicate } from '../sql/driver-errors.js';
import { toHiLoError } from '../operations/driver-errors.js';
import type { SqlClient, SqlDialect, SqlExecutor } from '../sql/sql-client.js';
import type { HiSource, StoredKeyColumn, StoredKeys } from '../engine/types.js';
import { sqlStoredKeys } from '../operations/stored-keys.js';
import { DIALECTS } from '../dialects/index.js';
import { catalogOf } from './catalogs.js';
import { configurationErrors, mismatchErrors, type PeerSettings } from '../error-messages.js';

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
  /**
   * With the preset's `storedKeys` option: the segments' key columns, checked before every block is handed out
   * (the generator's `storedKeys`). A key the other system stored inside a block refuses the segment with a
   * `HiLoMismatchError` naming the preset's settings to compare with the other system's.
   */
  readonly storedKeys?: StoredKeys;
}

/** `` `name: value` ``, marked when it is the default, for messages that name what the user set. */
export function setting(name: string, value: unknown, given: unknown): string {
  const shown = typeof value === 'string' ? `'${value}'` : String(value);
  return `\`${name}: ${shown}\`${given === undefined ? ' (the default)' : ''}`;
}

/**
 * The generator's `storedKeys` for a preset given `columns` (key columns: each key in one row, since a block in
 * hand storing more rows than hilo handed out keys counts as the other system's): blocks are checked through the verified-blocks
 * machinery (`sqlStoredKeys`), and an overlap is a `HiLoMismatchError` about the settings the two sides read the
 * shared store with (`sharedWith`), never a store behind: lifting a floor cannot fix a setting.
 */
export function peerStoredKeys(
  client: SqlClient,
  columns: readonly StoredKeyColumn[] | undefined,
  peer: PeerSettings,
): { storedKeys?: StoredKeys } {
  if (columns === undefined) return {};
  const keys = sqlStoredKeys(client, columns);
  const storedKeys: StoredKeys = {
    columns: (segment) => keys.columns?.(segment) ?? [],
    largest: (segment, signal) => keys.largest(segment, signal),
    within: (segment, block, signal) => keys.within(segment, block, signal),
    formatted: (segment, prefix) => keys.formatted!(segment, prefix),
    counts: (segment, block, signal) => keys.counts!(segment, block, signal),
    sharedWith: { mismatch: (overlap) => mismatchErrors.peerOverlap(peer, overlap) },
  };
  return { storedKeys };
}

/**
 * Throws a `HiLoConfigurationError` unless the client speaks one of `supported` (the other system's own
 * schema exists only there: EF Core's Npgsql provider and Marten are PostgreSQL-only).
 */
export function requireDialect(client: SqlClient, preset: string, supported: readonly SqlDialect[]): SqlDialect {
  const dialect = (client as { dialect?: unknown } | null | undefined)?.dialect;
  if (!(supported as readonly unknown[]).includes(dialect)) {
    const got =
      typeof dialect === 'string' && dialect in DIALECTS
        ? DIALECTS[dialect as SqlDialect].displayName
        : JSON.stringify(dialect);
    throw configurationErrors.presetDialect(
      preset,
      supported.map((d) => DIALECTS[d].displayName),
      got,
      supported.map((d) => DIALECTS[d].urlExample),
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
