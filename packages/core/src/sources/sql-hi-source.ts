import type { HiSource } from '../engine/types.js';
import type { HiLoStrategy } from '../engine/strategies.js';
import type { SqlDialect } from '../sql/sql-client.js';

/** Where {@link SqlHiSource.raiseFloor} looks for the largest existing key. */
export interface FloorFrom {
  /** The table holding existing keys, e.g. `orders`. */
  readonly table: string;
  /**
   * Its key column.
   * @default 'id'
   */
  readonly column?: string;
  /** The table's schema (PostgreSQL) or database (MySQL); default: the connection's. */
  readonly schema?: string;
}

/** What {@link SqlHiSource.raiseFloor} did. */
export interface FloorResult {
  readonly segment: string;
  /** The largest key found, or `undefined` when the table is empty. */
  readonly maxKey: bigint | undefined;
  /** Whether the segment was moved; false when it already was above `maxKey` (it never moves backwards). */
  readonly raised: boolean;
}

/** One segment as `status()` sees it in the database. */
export interface SegmentStatus {
  readonly segment: string;
  readonly source: 'sequence' | 'table';
  /** The quoted, qualified table or sequence name. */
  readonly object: string;
  /**
   * The stored value: the row's value, or the sequence's last value (`undefined` before its first use;
   * on MariaDB the next value not yet handed out).
   */
  readonly value: bigint | undefined;
  /** A sequence's INCREMENT BY. */
  readonly increment?: bigint;
  /**
   * The key columns the store records for the segment (`schema.table.column`), recorded at its first reservation
   * from the `storedKeys` it was given (`segmentStatus()`); absent when none is recorded.
   */
  readonly columns?: readonly string[];
  /**
   * The largest key the recorded {@link SegmentStatus.columns} hold, from the catalog: the smallest maximum of their
   * integer types (`2147483647` for an `integer` column). Absent when none is an integer column the catalog shows
   * (`segmentStatus()` only).
   */
  readonly keyMax?: bigint;
}

/** A hi source backed by a SQL sequence or table, with the maintenance operations the CLI needs. */
export interface SqlHiSource extends HiSource {
  readonly kind: 'sequence' | 'table';
  readonly dialect: SqlDialect;
  readonly strategy: HiLoStrategy;
  /** Checks (and, with `create`, creates) the sequence or row; also called by the first `reserve`. */
  prepare(segment: string, signal?: AbortSignal): Promise<void>;
  /**
   * Raises `segment` so that every future key is above the largest value of `from.column` in `from.table`;
   * never moves it backwards (Quarkus #31899).
   */
  raiseFloor(segment: string, from: FloorFrom): Promise<FloorResult>;
  /**
   * The first key the segment's next reservation would hand out, read without reserving or changing anything
   * (a sequence's position, a row's value); for a sequence whose values are cached per connection (`CACHE` above
   * 1, MariaDB's default), the lowest it can be. The sequence or row must exist: nothing is created.
   */
  nextKey(segment: string, signal?: AbortSignal): Promise<bigint>;
  /** The segments this source finds in the database, with their stored values. */
  status(): Promise<SegmentStatus[]>;
  /** The DDL (and seed rows) `prepare` would run for `segments`, as SQL text for migrations. */
  schemaSql(segments: readonly string[]): string[];
}
