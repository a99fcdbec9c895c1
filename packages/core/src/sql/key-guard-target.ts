import { HiLoConfigurationError } from '../errors.js';
import { validateSegment } from '../engine/segment-name.js';
import type { Dialect } from './dialect.js';
import { validateIdentifier } from './identifiers.js';
import type { SqlClient, SqlExecutor } from './sql-client.js';

/** The databases a key guard is written for. `mysql` covers MariaDB and MySQL. */
export type KeyGuardDialect = 'postgres' | 'mysql' | 'sqlite';

/** A key column that rows must never reach without a key from hilo. */
export interface KeyGuardTarget {
  /** The segment the column's keys come from; it only appears in the error message. */
  readonly segment: string;
  /** The table, e.g. `orders`. */
  readonly table: string;
  /**
   * The key column.
   * @default 'id'
   */
  readonly column?: string;
  /**
   * The table's schema (PostgreSQL) or database (MySQL); on PostgreSQL the function is created there too.
   * @default the search path's first schema (PostgreSQL), the connection's database (MySQL)
   */
  readonly schema?: string;
  /**
   * The line that installs hilo where this table's rows are written (at most 60 characters), e.g.
   * `prisma.$extends(hilo(...))`: MariaDB/MySQL's message, which has room for one, and SQLite's name it.
   * PostgreSQL's message names every adapter's line.
   * @default "install hilo on the client that inserts it" (MariaDB/MySQL); every adapter's line (SQLite)
   */
  readonly installLine?: string;
}

/** A {@link KeyGuardTarget} whose names are checked, with the column's default filled in. */
export interface CheckedTarget {
  readonly segment: string;
  readonly table: string;
  readonly column: string;
  readonly schema: string | undefined;
  readonly installLine: string | undefined;
}

function checkInstallLine(line: unknown): string | undefined {
  if (line === undefined) return undefined;
  // printable ASCII without backslashes: the message reads the same in every client and log
  if (typeof line !== 'string' || !/^[\x20-\x5b\x5d-\x7e]{1,60}$/.test(line))
    throw HiLoConfigurationError.invalidOption('installLine', 'a line of at most 60 characters', line);
  return line;
}

export function checkTarget(target: KeyGuardTarget): CheckedTarget {
  if (typeof target !== 'object' || target === null)
    throw HiLoConfigurationError.invalidOption('target', 'an object { segment, table, column? }', target);
  return {
    segment: validateSegment(target.segment),
    table: validateIdentifier('table', target.table),
    column: validateIdentifier('column', target.column ?? 'id'),
    schema: target.schema === undefined ? undefined : validateIdentifier('schema', target.schema),
    installLine: checkInstallLine(target.installLine),
  };
}

/**
 * What a key guard says when a row arrives without a key, with `segment` as given (a literal, or a placeholder the
 * database fills in): the row came through a client hilo is not installed on, and each adapter's install line.
 */
export function missingKeyMessage(segment: string): string {
  return (
    `hilo: a row of segment ${segment} arrived without a key, so hilo is not installed on the client that ` +
    `inserted it. Install it where that client is created: TypeORM withHiLo(new DataSource(options)); Prisma ` +
    `prisma.$extends(hilo({ metadata })); MikroORM extensions: [HiLo] in its config; Kysely plugins: ` +
    `[hilo.plugin]; Drizzle .$defaultFn(hilo.key(${segment})) on the key column. Or assign the key from hilo ` +
    `(generator.next(${segment})) before the INSERT.`
  );
}

/** What a guarded table's trigger is called on MariaDB/MySQL and SQLite: `<table>_hilo_key` (at most 59 characters). */
export function keyGuardTriggerName(table: string): string {
  return `${validateIdentifier('table', table).slice(0, 50)}_hilo_key`;
}

/** The table (and schema) quoted for `dialect`. */
export function qualifiedTable(dialect: Dialect, name: string, schema: string | undefined): string {
  const quoted = dialect.quote(name);
  return schema === undefined ? quoted : `${dialect.quote(validateIdentifier('schema', schema))}.${quoted}`;
}

/**
 * One database's key guard: how it is written, what makes a column unguardable, and how concurrent
 * installers are serialised. Each database that has one implements it in its folder.
 */
export interface KeyGuardStatements {
  /**
   * Set where the database stores a row that arrives without a key under a key of its own (SQLite's rowid, a key
   * hilo hands out later) instead of refusing it on `NOT NULL`: the adapters then install this guard by default.
   */
  readonly byDefault?: true;
  /** Every statement that guards `targets`, idempotent. */
  statements(targets: readonly CheckedTarget[]): string[];
  /**
   * The statements that belong to a schema rather than to a table, which {@link statements} includes once per
   * schema of its targets: PostgreSQL's function (in `options.schema`); none where each table's trigger stands
   * alone (MariaDB/MySQL, SQLite).
   */
  perSchema(options: MissingKeyFunctionOptions): string[];
  /** Why the column cannot be guarded (missing, not a table, an identity column), or undefined. */
  problem(client: SqlClient, target: CheckedTarget): Promise<string | undefined>;
  /** The statements as this server runs them best (MariaDB replaces a trigger in one statement). */
  forServer(client: SqlClient, statements: string[]): Promise<string[]>;
  /**
   * Set where {@link lock} and {@link unlock} run no statement (SQLite: the transaction's write lock serialises
   * installs), so that the statements can also run as one `batch` (all or none) on a client that has no
   * interactive transactions (Cloudflare D1).
   */
  readonly batchable?: true;
  /** Takes the lock that serialises hilo's DDL across processes, inside `tx`. */
  lock(tx: SqlExecutor): Promise<void>;
  /** Releases it where the database does not at commit. */
  unlock(tx: SqlExecutor): Promise<void>;
}

/** Options of `missingKeyFunctionSql`. */
export interface MissingKeyFunctionOptions {
  /**
   * Schema of the function.
   * @default none: the search path's first schema
   */
  readonly schema?: string;
}
