import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import {
  parseBlockSize,
  parseColumnRef,
  type ColumnRef,
  parseFloorRef,
  parseCount,
  parseGuardRef,
  type GuardRef,
  parseSource,
  parseTableName,
  parseUrl,
  parseMaxKey,
} from './arguments.js';
import { runAlter, type AlterOptions } from './commands/alter.js';
import { runCheck, type CheckOptions } from './commands/check.js';
import { runFloor, type FloorOptions } from './commands/floor.js';
import { runInit, type InitOptions } from './commands/init.js';
import { runNext, type NextOptions } from './commands/next.js';
import { runMove, type MoveOptions } from './commands/move.js';
import { runStatus, type StatusOptions } from './commands/status.js';
import type { CliIo } from './io.js';
import { DEFAULT_BLOCK_SIZE } from './open.js';
import { CLI_VERSION } from './version.js';

/**
 * What a segment name may look like on the command line: letters, digits and `_ . - : / @`, starting with a
 * letter, digit or `_`, at most 128 characters. Stricter than the library (whose table rows take any
 * text) so that quotes, spaces, semicolons and control characters from a script never reach a database;
 * sequences need a SQL identifier and are checked again by core before anything connects.
 */
export const SEGMENT_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.:/@-]{0,127}$/;

function parseSegment(value: string): string {
  if (!SEGMENT_PATTERN.test(value)) {
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    throw new InvalidArgumentError(
      `Expected a segment name of 1 to 128 letters, digits or "_.-:/@", starting with a letter, digit or "_" (e.g. orders), got ${shown}.`,
    );
  }
  return value;
}

function collectSegment(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), parseSegment(value)];
}

function collectGuard(value: string, previous: GuardRef[] | undefined): GuardRef[] {
  const ref = parseGuardRef(value);
  if (ref.segment !== undefined) parseSegment(ref.segment);
  return [...(previous ?? []), ref];
}

const URL_HELP = 'database URL: postgres://…, postgresql://…, mysql://…, mariadb://… or sqlite:PATH';
const SOURCE_HELP =
  'hi source: "sequence" (one sequence per segment) or "table" (one row per segment) (default: sequence on PostgreSQL, table elsewhere)';
const TABLE_HELP = 'hi table of the table source (default: hilo_segments)';

function withCommonOptions(command: Command, options: { table: boolean }): Command {
  command
    .addOption(new Option('--url <url>', URL_HELP).env('HILO_URL').argParser(parseUrl).makeOptionMandatory())
    .addOption(new Option('--source <kind>', SOURCE_HELP).argParser(parseSource));
  if (options.table) command.addOption(new Option('--table <name>', TABLE_HELP).argParser(parseTableName));
  return command;
}

/** What the action of the subcommand that ran left behind, for error messages. */
export interface ProgramState {
  /** The subcommand being run (`next`, …), once commander has chosen it. */
  command?: string;
  /** Its `--url`, for messages (with the password hidden). */
  url?: string;
}

/**
 * Builds the `hilo` command line. Commander never calls `process.exit`: errors come back as exceptions so
 * that `main` decides the exit status, and every message goes to `io`. Most callers want `main` instead.
 *
 * @example
 * ```ts
 * const program = createProgram({ stdout: process.stdout, stderr: process.stderr });
 * program.commands.map((command) => command.name()); // ['init', 'next', 'status', 'floor', 'check', 'alter', 'move']
 * ```
 */
export function createProgram(io: CliIo, state: ProgramState = {}): Command {
  const program = new Command('hilo')
    .description('Create, inspect and draw from hi/lo key segments in PostgreSQL, MariaDB/MySQL or SQLite.')
    .version(CLI_VERSION, '-V, --version', 'print the version of hilo-cli')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
  program.hook('preAction', (_program, action) => {
    state.command = action.name();
    const url: unknown = action.opts()['url'];
    if (typeof url === 'string') state.url = url;
  });

  withCommonOptions(
    program
      .command('init')
      .description('create the sequence, or the hi table and row, of each segment unless it exists (idempotent)')
      .addArgument(new Argument('<segment...>', 'segments to create, e.g. orders customers').argParser(collectSegment)),
    { table: true },
  )
    .option(
      '--block-size <n>',
      `keys per reservation; a sequence's INCREMENT BY (default: ${DEFAULT_BLOCK_SIZE})`,
      parseBlockSize,
    )
    .option(
      '--guard <[segment=]table[.column]>',
      'reject rows inserted into this key column without a key (PostgreSQL: a raising column default; ' +
        'MariaDB/MySQL: a BEFORE INSERT trigger); also SCHEMA.TABLE.COLUMN; repeatable (column default: ' +
        'id; segment default: the one named like the table, or the only one)',
      collectGuard,
    )
    .option('--sql', 'print the SQL statements instead of running them (for migrations)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  hilo init --url postgres://app@localhost/shop orders customers\n  hilo init ' +
        '--url mysql://root@localhost/shop --block-size 1000 orders\n  hilo init --url postgres://app@localhost/shop ' +
        'orders items --guard orders.id --guard items=order_items.item_id',
    )
    .action(async (segments: string[], options: InitOptions) => runInit(segments, options, io));

  withCommonOptions(
    program
      .command('next')
      .description('reserve keys of a segment and print them, one per line, in increasing order')
      .addArgument(new Argument('<segment>', 'the segment, e.g. orders').argParser(parseSegment)),
    { table: true },
  )
    .option(
      '--block-size <n>',
      `keys per round trip; a sequence's INCREMENT BY (default: an existing sequence's increment, else ${DEFAULT_BLOCK_SIZE})`,
      parseBlockSize,
    )
    .option('--count <n>', 'how many keys to print; millions stream in constant memory', parseCount, 1)
    .option(
      '--stored <segment=table[.column]>',
      "where the segment's keys are stored: every block is checked against it before a key of it is printed, and " +
        'a store behind it fails (exit 1) naming `hilo floor`; repeatable, also SCHEMA.TABLE.COLUMN (segment ' +
        'default: the table name; column default: id); required unless --unverified',
      collectGuard,
    )
    .addOption(
      new Option(
        '--unverified',
        'print keys without checking them against stored rows (for keys no table of this database holds)',
      ).conflicts('stored'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  hilo next --url postgres://app@localhost/shop --stored orders=orders.id orders\n  hilo next --url ' +
        'mariadb://root@localhost/shop --stored orders.id --count 1000000 orders > keys.txt\n  hilo next --url ' +
        'postgres://app@localhost/shop --unverified tickets',
    )
    .action(async (segment: string, options: NextOptions) => runNext(segment, options, io));

  withCommonOptions(
    program.command('status').description('list the segments in the database with their key columns and stored values'),
    {
      table: true,
    },
  )
    .option('--json', 'print the segments as JSON (values as strings)')
    .option(
      '--max-key <n|type>',
      'the largest key the key columns hold, for the USED column: int, bigint or a number (default: the type of ' +
        "each segment's recorded columns, from the catalog, else bigint)",
      parseMaxKey,
    )
    .option(
      '--stored <segment=table[.column]>',
      "where a segment's keys are stored: show the segment as BEHIND (and exit 1) when its store is behind them; " +
        'repeatable (segment default: the table name; column default: id)',
      collectGuard,
    )
    .action(async (options: StatusOptions) => runStatus(options, io));

  withCommonOptions(
    program
      .command('floor')
      .description('raise a segment so that every future key is above the largest key of a column; never lowers it')
      .addArgument(new Argument('<segment>', 'the segment, e.g. orders').argParser(parseSegment)),
    { table: true },
  )
    .addOption(
      new Option(
        '--from <table[.column]>',
        'the column holding existing keys, as TABLE, TABLE.COLUMN or SCHEMA.TABLE.COLUMN (column default: id); ' +
          '*.TABLE.COLUMN: every tenant schema (database) holding the table, for a store shared by tenants',
      )
        .argParser(parseFloorRef)
        .makeOptionMandatory(),
    )
    .option(
      '--block-size <n>',
      `a sequence's INCREMENT BY when floor creates it (default: an existing sequence's increment, else ${DEFAULT_BLOCK_SIZE})`,
      parseBlockSize,
    )
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  hilo floor --url postgres://app@localhost/shop orders --from orders.id')
    .action(async (segment: string, options: FloorOptions) => runFloor(segment, options, io));

  withCommonOptions(
    program
      .command('check')
      .description(
        "after a restore or switchover: check that each segment's hi store is ahead of the keys stored in its " +
          'table, as a starting process would (exit 1 when one is behind, with the `hilo floor` that fixes it)',
      )
      .addArgument(
        new Argument(
          '<segment=table[.column]...>',
          'a segment and the column holding its keys, e.g. orders=orders.id (SEGMENT= defaults to the table name; ' +
            'column default: id; also SCHEMA.TABLE.COLUMN)',
        ).argParser(collectGuard),
      ),
    { table: true },
  )
    .option('--json', 'print the results as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  hilo check --url postgres://app@localhost/shop orders=orders.id items=order_items.id',
    )
    .action(async (refs: GuardRef[], options: CheckOptions) => runCheck(refs, options, io));

  withCommonOptions(
    program
      .command('alter')
      .description(
        "change a sequence's INCREMENT BY without overlap: the next block starts after the last one handed out",
      )
      .addArgument(new Argument('<segment>', 'the segment, e.g. orders').argParser(parseSegment)),
    { table: true },
  )
    .addOption(
      new Option('--block-size <n>', 'the new INCREMENT BY (keys per block)')
        .argParser(parseBlockSize)
        .makeOptionMandatory(),
    )
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  hilo alter --url postgres://app@localhost/shop --block-size 1000 orders')
    .action(async (segment: string, options: AlterOptions) => runAlter(segment, options, io));

  withCommonOptions(
    program
      .command('move')
      .description(
        'move a key column to another segment (a deploy that renamed a segment): the new segment starts above the ' +
          "old one's store and the column's keys, and processes of the old segment are refused at their next block",
      )
      .addArgument(
        new Argument(
          '<table[.column]>',
          'the key column, as TABLE, TABLE.COLUMN or SCHEMA.TABLE.COLUMN (column default: id)',
        ).argParser(parseColumnRef),
      ),
    { table: true },
  )
    .addOption(
      new Option('--to <segment>', 'the segment that keys the column from now on')
        .argParser(parseSegment)
        .makeOptionMandatory(),
    )
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  hilo move --url postgres://app@localhost/shop orders.id --to orders_v2')
    .action(async (column: ColumnRef, options: MoveOptions) => runMove(column, options, io));

  for (const command of program.commands) {
    // one line per error, ending with where to read more
    command.configureOutput({
      ...program.configureOutput(),
      outputError: (text, write) =>
        write(
          `hilo ${command.name()}: ${text
            .replace(/^error: /, '')
            .replace(/\s*\n\s*/g, ' ')
            .trim()} (see \`hilo ${command.name()} --help\`)\n`,
        ),
    });
  }
  program.configureOutput({
    ...program.configureOutput(),
    outputError: (text, write) =>
      write(
        `hilo: ${text
          .replace(/^error: /, '')
          .replace(/\s*\n\s*/g, ' ')
          .trim()} (see \`hilo --help\`)\n`,
      ),
  });
  return program;
}
