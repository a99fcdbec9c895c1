import { CommanderError } from 'commander';
import { HiLoConfigurationError, HiLoMismatchError } from 'hilo-core';

/** Exit statuses of the `hilo` command (**contract**). */
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
 */
export function exitCodeFor(error: unknown): ExitStatus {
  if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  if (error instanceof HiLoConfigurationError || error instanceof HiLoMismatchError) return ExitCode.usage;
  return ExitCode.failure;
}

/** The error's message on one line: the contract promises a single line saying what to fix. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // core's hints speak to library users; on the command line only the `hilo init` half applies
  return text.replace(/ or pass `create: true`/g, '').replace(/\s*\n\s*/g, ' ').trim() || String(error);
}
