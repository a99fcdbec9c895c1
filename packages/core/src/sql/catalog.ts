import type { SqlClient, SqlExecutor } from './sql-client.js';

/** A table as the user named it: unquoted name and optional schema (database on MariaDB). */
export interface TableRef {
  readonly table: string;
  readonly schema: string | undefined;
}

/** The facts about a sequence that decide whether its values can be shared: kind of object, step, cycling. */
export interface SequenceShape {
  /** `'sequence'`, `'missing'`, or what the name is instead (`'table'`, `'view'` …). */
  readonly kind: string;
  readonly increment?: bigint;
  /** A cycling sequence starts again at its minimum after its maximum: values, and so keys, repeat. */
  readonly cycles?: boolean;
}

/**
 * What the interop presets read from and do in a database whose tables and sequences another system owns.
 * Each database that holds those systems' objects (PostgreSQL, MariaDB) implements it in its folder.
 */
export interface Catalog {
  /** The type of `column` in `ref` (lowercase, without length or modifiers), or `undefined` when there is no such column. */
  columnType(client: SqlClient, ref: TableRef, column: string): Promise<string | undefined>;
  /** Whether `column` alone is the primary key or a unique key of `ref`. */
  isUniqueColumn(client: SqlClient, ref: TableRef, column: string): Promise<boolean>;
  /** The columns of `ref`'s primary key (empty when it has none). */
  primaryKeyColumns(client: SqlClient, ref: TableRef): Promise<string[]>;
  /** What `ref` names: a sequence (with its step and cycling), another kind of object, or nothing. */
  sequenceShape(client: SqlClient, ref: TableRef): Promise<SequenceShape>;
  /** `count` values of the sequence `quoted` (a quoted, qualified name), in one round trip. */
  nextValues(client: SqlClient, quoted: string, count: number): Promise<unknown[]>;
  /** An INSERT of (segment, value) into `table` that does nothing when the segment's row exists; parameters: segment, value as text. */
  insertUnlessExists(table: string, segmentColumn: string, valueColumn: string): string;
  /** Runs `work` in a transaction holding an exclusive lock named after `table`. */
  withTableLock<T>(client: SqlClient, table: string, work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}
