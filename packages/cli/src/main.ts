import { CommanderError } from 'commander';
import { ExitCode, exitCodeFor, oneLine, type ExitStatus } from './exit-codes.js';
import { OutputClosedError, type CliIo } from './io.js';
import { createProgram, type ProgramState } from './program.js';

/**
 * Runs the `hilo` command line and resolves with its exit status instead of exiting, so tests and other
 * programs can embed it. Errors are written to `io.stderr` as one line saying what to fix.
 *
 * @param argv the arguments after the program name, e.g. `['next', '--url', url, 'orders']`
 * @param io where output goes; by default `process.stdout` and `process.stderr`
 * @returns 0 on success, 1 on a runtime failure, 2 on bad usage or bad input (see {@link ExitCode})
 * @example
 * ```ts
 * const status = await main(['status', '--url', 'sqlite:app.db']);
 * ```
 */
export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<ExitStatus> {
  const state: ProgramState = {};
  const program = createProgram(io, state);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    // the reader of stdout stopped (`hilo next … | head`): it has what it wanted
    if (error instanceof OutputClosedError) return ExitCode.ok;
    // commander has printed its own one-line message (or the help)
    if (error instanceof CommanderError) return exitCodeFor(error);
    io.stderr.write(`hilo${state.command ? ` ${state.command}` : ''}: ${oneLine(error, state.url)}\n`);
    return exitCodeFor(error);
  }
}
