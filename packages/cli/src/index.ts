export { main } from './main.js';
export { createProgram, type ProgramState } from './program.js';
export { ExitCode, exitCodeFor, type ExitStatus } from './exit-codes.js';
export type { CliIo } from './io.js';
