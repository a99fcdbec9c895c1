import { HiLoError, missingObjectHint, type HiLoHint } from '../errors.js';
import { codeOf, type Dialect, type DriverErrorLike } from './dialect.js';
import { sourceErrors, sourceUnavailableErrors } from '../error-messages.js';

/** Node.js socket failures: the server cannot be reached or went away. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EADDRNOTAVAIL',
]);

const LOST_CONNECTION_MESSAGE = new RegExp(
  [
    /connection terminated|connection (was )?(lost|closed|reset)|not queryable|closed state/.source,
    /timeout exceeded when trying to connect|terminating connection|server has gone away|socket hang up/.source,
    /database is locked|unable to open database/.source,
  ].join('|'),
  'i',
);

/**
 * Whether a driver error means "the database cannot be reached right now or refused this attempt for a
 * transient reason" (lost connection, shutdown, deadlock, serialization failure, busy SQLite file), so that
 * reserving again may succeed. Socket errors and messages are read here; each database's codes in its folder.
 */
export function isTransientError(error: unknown, dialect: Dialect): boolean {
  if (error instanceof HiLoError) return error.retryable;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as DriverErrorLike;
  const code = codeOf(e);
  if (code !== undefined && NETWORK_CODES.has(code)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isTransientError(inner, dialect))) return true;
  const byCode = dialect.isTransient(e);
  if (byCode !== undefined) return byCode;
  return typeof e.message === 'string' && LOST_CONNECTION_MESSAGE.test(e.message);
}

/**
 * Whether a driver error is a conflict the server answered with (a deadlock, a Galera certification conflict): the
 * dialect's {@link Dialect.isConflict}.
 */
export function isConflict(error: unknown, dialect: Dialect): boolean {
  return typeof error === 'object' && error !== null && dialect.isConflict?.(error) === true;
}

/**
 * Whether a pooled connection that failed with `error` must be closed rather than returned to the pool: it is lost
 * or broken (a transient error that is not a conflict), or it leads to a server that cannot serve now while others
 * may (a Galera node outside the Primary Component), so that the next connection can lead elsewhere.
 */
export function mustDropConnection(error: unknown, dialect: Dialect): boolean {
  if (typeof error === 'object' && error !== null && dialect.isNodeUnavailable?.(error) === true) return true;
  return isTransientError(error, dialect) && !isConflict(error, dialect);
}

/** Whether a driver error says that a table, sequence or schema does not exist. */
export function isMissingObject(error: unknown, dialect: Dialect): boolean {
  return typeof error === 'object' && error !== null && dialect.isMissingObject(error);
}

/** Whether a driver error is a unique-key violation (a concurrent `create … if not exists` lost a race). */
export function isDuplicate(error: unknown, dialect: Dialect): boolean {
  return typeof error === 'object' && error !== null && dialect.isDuplicate(error);
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'object' && error !== null) {
    const e = error as DriverErrorLike;
    if (Array.isArray(e.errors) && e.errors[0] instanceof Error) return e.errors[0].message;
    if (typeof e.code === 'string') return e.code;
  }
  return String(error);
}

/**
 * What failed, for messages: `reserving keys for "orders" from postgres table "hilo_segments"`, with the
 * database whose error codes classify the failure.
 */
export interface DriverErrorContext {
  readonly dialect: Dialect;
  /** What hilo was doing, e.g. `reserving keys for segment "orders" from postgres sequence "orders_hilo_seq"`. */
  readonly action: string;
  /** The fix to suggest when a table or sequence is missing; default: {@link missingObjectHint} of any. */
  readonly missingHint?: HiLoHint;
}

/**
 * Converts a driver error into hilo's typed errors: a conflict the server answered with (a deadlock, a Galera
 * certification conflict: {@link Dialect.isConflict}) becomes a retryable {@link HiLoSourceError} with `conflict`;
 * transient failures (connection refused or lost, timeouts, SQLSTATE 08xxx/57P01/40001/40P01, MySQL lock wait, a
 * Galera node outside the Primary Component, SQLite busy) a retryable {@link HiLoSourceUnavailableError}; anything
 * else a {@link HiLoSourceError} whose message says what to do. HiLo errors pass through unchanged.
 */
export function convertDriverError(error: unknown, context: DriverErrorContext): HiLoError {
  if (error instanceof HiLoError) return error;
  const detail = messageOf(error);
  if (isConflict(error, context.dialect)) {
    return sourceErrors.concurrentTransactionWon(context.action, detail, error);
  }
  if (isTransientError(error, context.dialect)) {
    return sourceUnavailableErrors.unreachable(context.action, detail, error);
  }
  if (isMissingObject(error, context.dialect)) {
    const hint = context.missingHint ?? missingObjectHint('the hi/lo tables and sequences');
    return sourceErrors.objectMissing(context.action, detail, error, hint);
  }
  return sourceErrors.databaseFailed(context.action, detail, error);
}

/**
 * Whether a driver error means that an established pooled connection died (killed by an administrator,
 * server restart, idle timeout). The pool replaces such a connection, so one immediate retry is worthwhile;
 * a refused connection is not retried here.
 */
export function isLostConnection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as DriverErrorLike;
  const code = codeOf(e);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') return false;
  if (code !== undefined && ['57P01', '57P02', '08003', '08006', 'ECONNRESET', 'EPIPE'].includes(code)) return true;
  if (
    code !== undefined &&
    [
      'PROTOCOL_CONNECTION_LOST',
      'ER_CONNECTION_KILLED',
      'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
      'PROTOCOL_ENQUEUE_AFTER_QUIT',
    ].includes(code)
  )
    return true;
  if (typeof e.errno === 'number' && [1927, 2006, 2013, 4031].includes(e.errno)) return true;
  return (
    typeof e.message === 'string' &&
    /connection terminated unexpectedly|not queryable|closed state|connection (was )?(lost|killed)|server has gone away/i.test(
      e.message,
    )
  );
}
