import { HiLoError, HiLoSourceError, HiLoSourceUnavailableError, missingObjectHint, type HiLoHint } from '../errors.js';
import type { SqlDialect } from './sql-client.js';

interface DriverErrorLike {
  code?: unknown;
  errno?: unknown;
  errcode?: unknown;
  fatal?: unknown;
  message?: unknown;
  errors?: unknown;
}

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

/** SQLSTATEs after which the same reservation may succeed: lost connection, shutdown, serialization, deadlock. */
const PG_RETRYABLE = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01', '55P03']);

/** MySQL/MariaDB error numbers after which retrying may succeed. */
const MYSQL_RETRYABLE = new Set([
  1040, // too many connections
  1053, // server shutdown in progress
  1205, // lock wait timeout
  1213, // deadlock
  1317, // query interrupted
  1927, // connection killed (MariaDB)
  2002, // can't connect
  2003, // can't connect to server
  2006, // server has gone away
  2013, // lost connection during query
  4031, // disconnected by the server for inactivity
]);

const MYSQL_RETRYABLE_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
]);

/** SQLite result codes (primary) after which retrying may succeed: BUSY, LOCKED, CANTOPEN. */
const SQLITE_RETRYABLE = new Set([5, 6, 14]);
const SQLITE_RETRYABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN)/;

const LOST_CONNECTION_MESSAGE =
  /connection terminated|connection (was )?(lost|closed|reset)|not queryable|closed state|timeout exceeded when trying to connect|terminating connection|server has gone away|socket hang up|database is locked|unable to open database/i;

function codeOf(error: DriverErrorLike): string | undefined {
  return typeof error.code === 'string' ? error.code : undefined;
}

/**
 * Whether a driver error means "the database cannot be reached right now or refused this attempt for a
 * transient reason" (lost connection, shutdown, deadlock, serialization failure, busy SQLite file), so that
 * reserving again may succeed.
 */
export function isTransientDriverError(error: unknown, dialect: SqlDialect): boolean {
  if (error instanceof HiLoError) return error.retryable;
  if (typeof error !== 'object' || error === null) return false;
  const e = error as DriverErrorLike;
  const code = codeOf(e);
  if (code !== undefined && NETWORK_CODES.has(code)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isTransientDriverError(inner, dialect))) return true;
  if (dialect === 'postgres') {
    if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return code.startsWith('08') || PG_RETRYABLE.has(code);
  } else if (dialect === 'mysql') {
    if (e.fatal === true) return true;
    if (typeof e.errno === 'number' && MYSQL_RETRYABLE.has(e.errno)) return true;
    if (code !== undefined && MYSQL_RETRYABLE_CODES.has(code)) return true;
  } else {
    if (typeof e.errcode === 'number' && SQLITE_RETRYABLE.has(e.errcode & 0xff)) return true;
    if (code !== undefined && SQLITE_RETRYABLE_CODES.test(code)) return true;
  }
  return typeof e.message === 'string' && LOST_CONNECTION_MESSAGE.test(e.message);
}

/** Whether a driver error says that a table, sequence or schema does not exist. */
export function isMissingObjectError(error: unknown, dialect: SqlDialect): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as DriverErrorLike;
  const code = codeOf(e);
  if (dialect === 'postgres') return code === '42P01' || code === '3F000';
  if (dialect === 'mysql') return e.errno === 1146 || code === 'ER_NO_SUCH_TABLE';
  return typeof e.message === 'string' && /no such table/i.test(e.message);
}

/** Whether a driver error is a unique-key violation (a concurrent `create … if not exists` lost a race). */
export function isDuplicateError(error: unknown, dialect: SqlDialect): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as DriverErrorLike;
  const code = codeOf(e);
  if (dialect === 'postgres') return code === '23505' || code === '42P07' || code === '42710';
  if (dialect === 'mysql') return e.errno === 1050 || e.errno === 1062;
  return typeof e.message === 'string' && /already exists|UNIQUE constraint/i.test(e.message);
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

/** What failed, for messages: `reserving keys for "orders" from postgres table "hilo_segments"`. */
export interface ErrorContext {
  readonly dialect: SqlDialect;
  /** What hilo was doing, e.g. `reserving keys for segment "orders" from postgres sequence "orders_hilo_seq"`. */
  readonly action: string;
  /** The fix to suggest when a table or sequence is missing; default: {@link missingObjectHint} of any. */
  readonly missingHint?: HiLoHint;
}

/**
 * Converts a driver error into hilo's typed errors: transient failures (connection refused or lost,
 * timeouts, SQLSTATE 08xxx/57P01/40001/40P01, MySQL deadlock or lock wait, SQLite busy) become a retryable
 * {@link HiLoSourceUnavailableError}; anything else a {@link HiLoSourceError} whose message says what to do.
 * HiLo errors pass through unchanged.
 */
export function toHiLoError(error: unknown, context: ErrorContext): HiLoError {
  if (error instanceof HiLoError) return error;
  const detail = messageOf(error);
  if (isTransientDriverError(error, context.dialect)) {
    return new HiLoSourceUnavailableError(
      `The database could not be reached while ${context.action}: ${detail}. Check that it runs and accepts connections; the reservation is retried and its outcome discarded.`,
      { cause: error },
    );
  }
  if (isMissingObjectError(error, context.dialect)) {
    return new HiLoSourceError(`A hi/lo table or sequence is missing while ${context.action}: ${detail}.`, {
      cause: error,
      hint: context.missingHint ?? missingObjectHint('the hi/lo tables and sequences'),
    });
  }
  return new HiLoSourceError(`The database failed while ${context.action}: ${detail}.`, { cause: error });
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
  if (code !== undefined && ['PROTOCOL_CONNECTION_LOST', 'ER_CONNECTION_KILLED', 'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR', 'PROTOCOL_ENQUEUE_AFTER_QUIT'].includes(code)) return true;
  if (typeof e.errno === 'number' && [1927, 2006, 2013, 4031].includes(e.errno)) return true;
  return typeof e.message === 'string' && /connection terminated unexpectedly|not queryable|closed state|connection (was )?(lost|killed)|server has gone away/i.test(e.message);
}
