import type { ReplicationSql } from './replication.js';
import type { SqlDialect } from './sql-client.js';

/** The fields of a driver error (pg, mysql2, node:sqlite, better-sqlite3) the dialects read. */
export interface DriverErrorLike {
  code?: unknown;
  errno?: unknown;
  errcode?: unknown;
  fatal?: unknown;
  message?: unknown;
  errors?: unknown;
}

/**
 * What generic code needs to know about one database, looked up by name instead of branched on: each
 * database's folder (`dialects/postgres`, `dialects/mysql`, `dialects/sqlite`) exports one.
 */
export interface Dialect {
  readonly name: SqlDialect;
  /** How people name the database in messages: `PostgreSQL`, `MariaDB`, `SQLite`. */
  readonly displayName: string;
  /**
   * The names ORMs and drivers report this database by (TypeORM's `type`, MikroORM's platform, Prisma's provider,
   * Drizzle's and Kysely's dialect or adapter), lowercase letters and digits only, without a trailing
   * `platform`, `driver`, `adapter` or `dialect`: `dialectOf` compares what an ORM reports with these.
   */
  readonly reportedAs: readonly string[];
  /** How a `connect()` URL for this database starts, for messages: `postgres://`, `mysql:// (MariaDB)`, `sqlite:`. */
  readonly urlExample: string;
  /** The URL schemes (lowercase, without the colon) that name this database, `connect()` opens them or not. */
  readonly urlSchemes: readonly string[];
  /** The `n`-th (1-based) bound parameter in a statement: `$1` on PostgreSQL, `?` elsewhere. */
  placeholder(n: number): string;
  /** An identifier quoted for this database (`"name"`, or `` `name` `` on MariaDB). */
  quote(name: string): string;
  /** An SQL expression as text, so that bigint values reach JavaScript without losing precision. */
  asText(expression: string): string;
  /** An SQL expression as a signed integer (MariaDB compares a text value with a number as a double otherwise). */
  asSigned(expression: string): string;
  /**
   * One statement as text of a migration script run by the database's own command-line client: `;`-ended,
   * or (MariaDB) a trigger with `;` inside its BEGIN … END wrapped in DELIMITER lines.
   */
  scriptStatement(statement: string): string;
  /** A string as an SQL literal (for migration files), with whatever escaping this database needs. */
  literal(value: string): string;
  /** Whether the database has sequences (SQLite has none: only table sources run there). */
  readonly hasSequences: boolean;
  /**
   * Whether software written for this database may keep a one-row table where a sequence would be: MySQL has no
   * sequences and MariaDB has them only since 10.3, so ORMs emulate them (Hibernate 3.x–5.2's MySQL dialects
   * name the table like the sequence). A preset finding a table there explains this instead of a plain mismatch.
   */
  readonly sequencesMayBeTables: boolean;
  /** Whether tables live in schemas that a `schema` option may name (SQLite has none). */
  readonly hasSchemas: boolean;
  /**
   * Where tables have schemas: the SQL expression of the schema (PostgreSQL) or database (MariaDB) a connection
   * resolves unqualified names in, e.g. `current_schema()`.
   */
  readonly currentSchema?: string;
  /**
   * Whether two spellings of a quoted table or column name that differ only in case may name the same object
   * (MariaDB/MySQL columns, and tables on case-insensitive file systems; SQLite): then checks comparing names
   * (one segment per key column) compare them ignoring case. PostgreSQL keeps quoted names as written.
   */
  readonly namesIgnoreCase: boolean;
  /** What follows `create table …(…)` so that row locks and transactions work (InnoDB on MariaDB). */
  readonly tableSuffix: string;
  /** The source `createHiLo` uses when none is named: a sequence where sequences are native to hilo's use. */
  readonly defaultSource: 'sequence' | 'table';
  /**
   * Whether a driver error of this database is transient (the same reservation may succeed if tried
   * again); `undefined` when its codes do not say, so that generic checks (socket errors, messages) decide.
   */
  isTransient(error: DriverErrorLike): boolean | undefined;
  /**
   * Whether a driver error says the server answered and turned the statement down because a concurrent transaction
   * won (a deadlock, a Galera certification conflict): worth a retry, and no sign that the server went away.
   * Absent: no error is read as one.
   */
  isConflict?(error: DriverErrorLike): boolean;
  /**
   * Whether a driver error says that the server the connection leads to cannot serve now while others may (a Galera
   * node outside the Primary Component): the connection is closed instead of going back to the pool, so that a
   * load balancer can lead the next one elsewhere. Absent: only lost connections are closed.
   */
  isNodeUnavailable?(error: DriverErrorLike): boolean;
  /**
   * The server's identity and synchronous-standby statements, where the database has them (PostgreSQL): hilo
   * notices a failover with the first and offers `synchronousStandby` with the second.
   */
  readonly replication?: ReplicationSql;
  /** Whether a driver error says a table, sequence or schema does not exist. */
  isMissingObject(error: DriverErrorLike): boolean;
  /** Whether a driver error is a unique-key violation or an object that already exists (a lost creation race). */
  isDuplicate(error: DriverErrorLike): boolean;
}

/** The driver error's `code` when it is a string. */
export function codeOf(error: DriverErrorLike): string | undefined {
  return typeof error.code === 'string' ? error.code : undefined;
}
