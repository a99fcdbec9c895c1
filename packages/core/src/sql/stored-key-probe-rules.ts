import type { SqlClient } from './sql-client.js';

/** What the catalog says about one stored-key column, read once at a segment's first check. */
export interface ColumnFacts {
  /** Whether the catalog knows the column (its table exists and the role may see it). */
  readonly found: boolean;
  /** Whether it is a text type (char, varchar, text): its keys are then decimal digits compared as numbers. */
  readonly textual: boolean;
  /** Whether a B-tree index (a primary key counts) leads with the column, so that a range on it reads the index. */
  readonly indexed: boolean;
  /**
   * The largest value the column's integer type holds (`2147483647` for an `integer`), or `undefined` for any other
   * type: a block's probe never asks for a key above it (PostgreSQL refuses a bound its column cannot hold).
   */
  readonly maxValue?: bigint | undefined;
}

/** The largest signed 64-bit integer: no probe bound goes above it (every database's integer keys fit in it). */
export const SIGNED_64_MAX = 2n ** 63n - 1n;

/** The table and column a probe reads, as configured (not quoted). */
export interface ProbeTarget {
  readonly schema?: string | undefined;
  readonly table: string;
  readonly column: string;
}

/**
 * One database's rules for probing keys written as text, and for reading its catalog: each database's folder
 * (`dialects/<db>/stored-key-probe.ts`) exports one.
 */
export interface StoredKeyProbeRules {
  /** The column's type and whether an index leads with it; `found: false` when its table does not exist. */
  inspect(client: SqlClient, target: ProbeTarget): Promise<ColumnFacts>;
  /** SQL that is true when the text `expression` is a decimal number without leading zeros (`'10'`, not `'010'`). */
  isDecimal(expression: string): string;
  /** The number of characters of a text `expression`. */
  length(expression: string): string;
  /**
   * The number in a formatted id (`prefix`, the number, optionally `-` and a node tag of 1 to 16 letters or
   * digits) as text, or NULL when `expression` is not such an id.
   */
  formatNumber(expression: string, prefix: string): string;
  /**
   * Optional: the schemas other than the connection's own that hold a table named `table`, for a table named
   * without a schema that hilo's connection does not find where the application's connections do (a pool whose
   * `search_path` hilo's lacks). Databases whose schemas are separate databases (MariaDB/MySQL) leave it out.
   */
  schemasWithTable?(client: SqlClient, table: string): Promise<readonly string[]>;
}

/** A text as a regular expression matching exactly it (for `formatNumber`'s pattern). */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}-]/g, '\\$&');
}
