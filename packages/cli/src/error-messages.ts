// The messages of the errors the hilo CLI throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids building them elsewhere.
import { HiLoConfigurationError, HiLoMismatchError } from 'hilo-core';

/** Factories for the configuration errors the CLI throws (usage mistakes, exit code 2): one per mistake. */
export const configurationErrors = {
  /** `hilo next` without `--stored` or `--unverified`. */
  storedColumnsRequired: (segment: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `keys are checked against the rows that hold them before they are printed: pass --stored ` +
        `${segment}=TABLE.COLUMN (e.g. --stored ${segment}=${segment}.id; repeatable), or --unverified for keys no ` +
        `table of this database holds.`,
    ),

  /** A `--stored` column names another segment than the one keys are drawn from. */
  storedOtherSegment: (named: string, table: string, column: string, segment: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `--stored ${named}=${table}.${column} names segment "${named}", but the keys are drawn from ` +
        `"${segment}"; write --stored ${segment}=${table}.${column}.`,
    ),

  /** A `--guard` column whose segment cannot be told (no segment named like its table, several segments). */
  guardWithoutSegment: (column: string, table: string, example: string | undefined): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `--guard ${column}: no segment is named "${table}", so say which segment its keys come from, ` +
        `e.g. --guard ${example}=${column}.`,
    ),

  /** A `--guard` column of a segment the command does not create (`named` is the segment given before `=`). */
  guardSegmentNotCreated: (
    named: string | undefined,
    column: string,
    segment: string,
    segments: readonly string[],
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `--guard ${named === undefined ? '' : `${named}=`}${column}: segment "${segment}" ` +
        `is not among the segments to create (${segments.join(', ')}); add it to the command.`,
    ),
};

/** Factories for the mismatches between the command line and the database the CLI refuses: one per mistake. */
export const mismatchErrors = {
  /** `--block-size` differs from the existing sequence's INCREMENT BY. */
  blockSizeNotIncrement: (sequence: string, segment: string, increment: bigint, blockSize: number): HiLoMismatchError =>
    new HiLoMismatchError(
      `Sequence ${sequence} of segment "${segment}" has INCREMENT BY ${increment}, not ${blockSize}: ` +
        `pass --block-size ${increment} or leave it out; to change it, run \`hilo alter --block-size ` +
        `${blockSize} ${segment}\`.`,
    ),

  /**
   * `hilo init --block-size` found, after creating the sequence unless it existed, one with another INCREMENT BY:
   * another init (or a peer) created it first.
   */
  initCreatedOther: (sequence: string, segment: string, increment: bigint, blockSize: number): HiLoMismatchError =>
    new HiLoMismatchError(
      `Sequence ${sequence} of segment "${segment}" was created with INCREMENT BY ${increment} by someone else ` +
        `(another \`hilo init\` at the same time, or an application) while this one asked for --block-size ` +
        `${blockSize}; nothing was changed. Use --block-size ${increment} (or leave it out), or change it with ` +
        `\`hilo alter --block-size ${blockSize} ${segment}\`.`,
    ),
};
