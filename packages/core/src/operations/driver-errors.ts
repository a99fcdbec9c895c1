import type { HiLoError, HiLoHint } from '../errors.js';
import { DIALECTS } from '../dialects/index.js';
import { convertDriverError, isTransientError } from '../sql/driver-errors.js';
import type { SqlDialect } from '../sql/sql-client.js';

/** What failed, for messages: `reserving keys for "orders" from postgres table "hilo_segments"`. */
export interface ErrorContext {
  readonly dialect: SqlDialect;
  /** What hilo was doing, e.g. `reserving keys for segment "orders" from postgres sequence "orders_hilo_seq"`. */
  readonly action: string;
  /** The fix to suggest when a table or sequence is missing; default: `missingObjectHint` of any. */
  readonly missingHint?: HiLoHint;
}

/**
 * Converts a driver error of the database `context.dialect` names into hilo's typed errors: transient failures
 * (connection refused or lost, timeouts, SQLSTATE 08xxx/57P01/40001/40P01, MySQL deadlock or lock wait, SQLite
 * busy) become a retryable `HiLoSourceUnavailableError`; anything else a `HiLoSourceError` whose message says
 * what to do. HiLo errors pass through unchanged.
 *
 * @example
 * ```ts
 * throw toHiLoError(error, { dialect: client.dialect, action: 'reading the orders table' });
 * ```
 */
export function toHiLoError(error: unknown, context: ErrorContext): HiLoError {
  return convertDriverError(error, { ...context, dialect: DIALECTS[context.dialect] });
}

/**
 * Whether a driver error of the database `dialect` names means that it cannot be reached right now or refused
 * this attempt for a transient reason, so that trying again may succeed.
 *
 * @example
 * ```ts
 * if (isTransientDriverError(error, 'postgres')) scheduleRetry();
 * ```
 */
export function isTransientDriverError(error: unknown, dialect: SqlDialect): boolean {
  return isTransientError(error, DIALECTS[dialect]);
}
