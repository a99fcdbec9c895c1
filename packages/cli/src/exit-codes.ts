import { CommanderError } from 'commander';
import {
  HiLoConfigurationError,
  HiLoError,
  HiLoMismatchError,
  HiLoSourceUnavailableError,
  HiLoTimeoutError,
} from 'hilo-core';
import { redactUrl } from 'hilo-core/adapter-kit';
import { TIMEOUT_MS } from './open.js';

/**
 * Exit statuses of the `hilo` command (**contract**).
 *
 * @example
 * ```ts
 * if ((await main(argv)) === ExitCode.usage) console.error('fix the command line');
 * ```
 */
export const ExitCode = {
  /** Success. */
  ok: 0,
  /** A runtime failure: the database is unreachable, a query failed, … */
  failure: 1,
  /** Bad usage or bad input: an unknown option, a bad number, a hostile segment name, … */
  usage: 2,
} as const;

/** One of {@link ExitCode}'s values. */
export type ExitStatus = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Which status an error ends the command with: bad input (the user can fix the command line) is 2,
 * everything else 1. A mismatch between `--block-size` and the database's sequence counts as bad input.
 *
 * @example
 * ```ts
 * exitCodeFor(new HiLoConfigurationError('bad segment')); // 2
 * ```
 */
export function exitCodeFor(error: unknown): ExitStatus {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (error instanceof HiLoConfigurationError || error instanceof HiLoMismatchError) return ExitCode.usage;
  return ExitCode.failure;
}

/** The driver's own words at the bottom of a chain of causes (`connect ECONNREFUSED 127.0.0.1:5432`). */
function rootCause(error: unknown): string | undefined {
  let current: unknown = error;
  while (current instanceof HiLoError && current.cause !== undefined) current = current.cause;
  if (current instanceof HiLoTimeoutError) return `no answer within ${TIMEOUT_MS / 1000} s`;
  if (current instanceof HiLoError || current === undefined || current === null) return undefined;
  const inner: unknown = current instanceof AggregateError ? current.errors[0] : current;
  const message = inner instanceof Error && inner.message ? inner.message : (inner as { code?: unknown }).code;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

function unreachable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof HiLoSourceUnavailableError || e instanceof HiLoTimeoutError) return true;
  }
  return false;
}

/**
 * The error's message on one line: the contract promises a single line saying what to fix. A database
 * that cannot be reached is said so plainly, with the driver's reason and the URL (password hidden).
 */
export function oneLine(error: unknown, url?: string): string {
  if (unreachable(error)) {
    const reason = rootCause(error) ?? (error instanceof Error ? error.message : String(error));
    const where = url === undefined ? 'the database' : redactUrl(url);
    return `could not reach ${where} (${reason.replace(/\s*\n\s*/g, ' ')}); check that the database runs and accepts connections.`;
  }
  // core's hints come worded for library callers and for the command line: print the command line's
  const text =
    error instanceof HiLoError && error.hint !== undefined
      ? `${error.problem} ${error.hint.cli}`
      : error instanceof Error
        ? error.message
        : String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim() || String(error);
}
