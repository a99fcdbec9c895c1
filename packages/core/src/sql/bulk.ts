import type { TableRef } from './catalog.js';
import type { DriverErrorLike } from './dialect.js';
import type { SqlExecutor } from './sql-client.js';

/** Writes batches of rows into one table, in the database's fastest bulk path (PostgreSQL: `COPY … FROM STDIN`). */
export interface BulkTableWriter {
  /** How the rows travel: `binary` or `text` COPY on PostgreSQL, `insert` for multi-row INSERTs. */
  readonly format: string;
  /**
   * Writes `rows` (values in the order of the columns the writer was opened with), resolving once the database has
   * taken every one of them; a rejection leaves the transaction to be rolled back.
   */
  write(rows: readonly (readonly unknown[])[]): Promise<void>;
}

/** Where in a bulk write a database error happened, as far as the server said. */
export interface BulkErrorPlace {
  /** The 0-based row of the batch the server named (PostgreSQL's `COPY t, line N`). */
  readonly row?: number;
  /** The column the server named. */
  readonly column?: string;
  /** Column values the server named (a foreign or unique key's `Key (a, b)=(1, 2)`), as text. */
  readonly values?: Readonly<Record<string, string>>;
}

/**
 * One connection a graph load runs on, in one transaction: each database's folder builds one from its driver
 * (`pgGraphTarget`), and the generic loader uses only this.
 */
export interface BulkConnection {
  /** The database's display name, for messages. */
  readonly displayName: string;
  /** Runs one statement on the load's connection (transaction control, `set constraints`). */
  readonly executor: SqlExecutor;
  /** Whether the connection is already inside the caller's transaction: the load then runs in a savepoint of it. */
  readonly inTransaction: boolean;
  /** The statement that defers every deferrable constraint to the commit; absent where the database has none. */
  readonly deferConstraints?: string;
  /** An identifier quoted for this database. */
  quote(name: string): string;
  /** Opens a writer for `columns` of `table`, reading the columns' types once. */
  tableWriter(table: TableRef, columns: readonly string[]): Promise<BulkTableWriter>;
  /** Where in a batch the database error `error` happened, as far as the server said. */
  locate(error: DriverErrorLike): BulkErrorPlace;
  /** Whether loading again may succeed after `error` (a lost connection, a deadlock). */
  isTransient(error: unknown): boolean;
  /** Gives the connection back (closing it when `broken`), unless it is the caller's. */
  release(broken: boolean): Promise<void>;
}

/**
 * A value an encoder cannot write into its column (`expected` says what it takes). The loader turns it into a typed
 * error naming the table, the row and the column.
 */
export class BulkValueError extends Error {
  /** The 0-based column (of the writer's columns) whose value it is, once the row encoder knows it. */
  columnIndex: number | undefined;
  /** The 0-based row of the batch, once the writer knows it. */
  batchRow: number | undefined;
  constructor(
    /** What the column takes, e.g. `an integer from -32768 to 32767`. */
    readonly expected: string,
    /** The value given. */
    readonly value: unknown,
  ) {
    super(`expected ${expected}`);
    this.name = 'BulkValueError';
  }
}

/**
 * Where a graph load writes: opens the one connection the load runs on. Each database's folder builds one from its
 * driver (`pgGraphTarget`).
 */
export interface GraphTarget {
  /** Opens (or takes over) the connection of one load. */
  open(): Promise<BulkConnection>;
}

/** A column of a table as the catalog describes it, for a graph load. */
export interface CatalogColumn {
  readonly name: string;
  /** Whether the database fills it when it is left out (a default, an identity, a generated column). */
  readonly defaulted: boolean;
}

/** A one-column foreign key of a table as the catalog describes it, for a graph load. */
export interface CatalogReference {
  readonly column: string;
  readonly table: string;
  /** The referenced table's schema (database on MariaDB); `undefined` where the database has none (SQLite). */
  readonly schema: string | undefined;
  readonly deferrable: boolean;
}

/** A table as its database's catalog describes it: where it was found, its columns and its one-column foreign keys. */
export interface CatalogTable {
  readonly schema: string | undefined;
  readonly columns: readonly CatalogColumn[];
  readonly references: readonly CatalogReference[];
}

/** Reads a table's columns and foreign keys from one database's catalog; `undefined` when there is no such table. */
export type GraphCatalog = (executor: SqlExecutor, table: TableRef) => Promise<CatalogTable | undefined>;

/** Whether a catalog's flag column says yes (a boolean on PostgreSQL, 0/1 elsewhere). */
export const catalogFlag = (value: unknown): boolean => value === true || Number(value) === 1;

/** The foreign keys of `rows` (one row per column, `k` naming the constraint) that have one column. */
export function oneColumnReferences(
  rows: readonly { c: string; t: string; s: string | null; k: unknown; d?: unknown }[],
): CatalogReference[] {
  const columns = new Map<string, number>();
  for (const row of rows) columns.set(String(row.k), (columns.get(String(row.k)) ?? 0) + 1);
  return rows
    .filter((row) => columns.get(String(row.k)) === 1)
    .map((row) => ({ column: row.c, table: row.t, schema: row.s ?? undefined, deferrable: catalogFlag(row.d) }));
}
