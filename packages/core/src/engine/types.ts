import type { HiLoError } from '../errors.js';

/** A contiguous range of keys `[first, last]`, both inclusive, reserved in the database for one process. */
export interface Block {
  readonly first: bigint;
  readonly last: bigint;
}

/** What a generator passes to {@link HiSource.reserve}. */
export interface ReserveRequest {
  /** How many keys the generator would like. A source may round up (a sequence's increment); never down. */
  readonly size: number;
  /** Aborted when the generator's `timeoutMs` runs out or the generator closes. */
  readonly signal: AbortSignal;
  /**
   * A source that can tell which database server reserved the blocks calls this before it resolves, with that
   * server's identity read in the same statement (or transaction) as the reservation; see {@link HiSource.server}.
   */
  readonly server?: (identity: string) => void;
}

/**
 * Reserves blocks of keys for named segments. The database's atomic increment behind it is the one thing
 * that makes keys unique across processes. **Contract** for every implementation:
 * - `reserve` runs on a connection of its own and commits before it resolves: never inside a caller's
 *   transaction, so a rolled-back business transaction never rolls back a reservation;
 * - the blocks it returns are never returned again, by this or any other process, unless released;
 * - it resolves only once the reservation is durable; if it rejects, the caller treats the outcome as
 *   unknown and never uses the block;
 * - returned blocks are in ascending order.
 */
export interface HiSource {
  /** A short description for messages and `stats()`, e.g. `postgres sequence "public"."orders_hilo_seq"`. */
  readonly description: string;
  /**
   * Checks (and, where configured, creates) what the segment needs in the database: the sequence or the
   * table row. Called once per segment before its first reservation. Rejects with a
   * `HiLoMismatchError` when the database disagrees with the configuration.
   */
  prepare?(segment: string, signal: AbortSignal): Promise<void>;
  /** Reserves at least `request.size` keys for `segment`, possibly as several blocks. */
  reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]>;
  /**
   * Gives back the unused tail of the most recently reserved block, only where the database can prove that
   * nobody reserved after it (compare-and-set on the stored value). Resolves to whether it was returned.
   */
  release?(segment: string, unused: Block): Promise<boolean>;
  /**
   * Moves the segment's store so that every block reserved from now on lies above `above`; never moves it
   * backwards (compare-and-set or GREATEST). Resolves with whether it moved. The generator calls it with
   * `onStoreBehind: 'lift'` when it found the store behind the segment's stored keys (see {@link StoredKeys}).
   */
  raiseAbove?(segment: string, above: bigint, signal?: AbortSignal): Promise<boolean>;
  /**
   * The identity of the server the source reserves on now (PostgreSQL: system identifier, WAL timeline and
   * postmaster start time), or `undefined` when it cannot tell (MariaDB, SQLite, a role that may not read it).
   * Two different identities mean the blocks reserved on the first may be unknown to the second (a promoted
   * standby that missed the last reservations): the generator then discards them (DESIGN rule 7). Rejects when
   * the server cannot be reached. A source with this method reports the same identity through
   * {@link ReserveRequest.server} with each reservation.
   */
  server?(signal: AbortSignal): Promise<string | undefined>;
  /**
   * Whether a server the generator left may be the current one again under the same identity (MariaDB's
   * `@@server_id` after a failback). Without it an identity once left never is: its answers, from connections to
   * the old server still open, are discarded. With it, that server answering a request sent after the last
   * failover is another failover.
   * @default false
   */
  readonly serverMayReturn?: boolean;
  /**
   * What changed between two identities `server()` reported, where the database can tell (PostgreSQL): `restart`
   * (the same system and timeline, started again), `promotion` (the same system on a new timeline: a promoted
   * standby, a point-in-time restore) or `other-server` (another system). Only the words of the warning and the
   * events depend on it; the blocks are discarded either way.
   * @default every change is `other-server`
   */
  serverChange?(from: string, to: string): ServerChange;
  /** Frees the source's own resources (not a pool the caller passed in). */
  close?(): Promise<void>;
}

/**
 * Why the server hilo reserves on changed: the same server started again (`restart`), a standby promoted or a
 * point-in-time restore (`promotion`), or another server altogether (`other-server`, and whatever cannot be told).
 */
export type ServerChange = 'restart' | 'promotion' | 'other-server';

/** A column that holds keys of a segment, e.g. `{ segment: 'orders', table: 'orders', column: 'id' }`. */
export interface StoredKeyColumn {
  readonly segment: string;
  readonly table: string;
  readonly column: string;
  /** The table's schema (PostgreSQL) or database (MySQL); default: the connection's. */
  readonly schema?: string | undefined;
  /**
   * A store shared by tenants (schema-per-tenant on PostgreSQL, database-per-tenant on MariaDB/MySQL): the
   * tenants whose copy of `table` the segment's keys are checked against, instead of `schema`. `'*'`: every
   * schema (database) that holds a table of this name, read from the catalog at each check, so a tenant created
   * while the application runs is checked from its next block on; a list names them. A floor or a lift then
   * moves the store above every tenant's keys.
   * @example
   * ```ts
   * { segment: 'orders', table: 'orders', column: 'id', tenants: '*' }
   * ```
   */
  readonly tenants?: '*' | readonly string[] | undefined;
  /**
   * How the keys are written in the column. `'number'` and `'string'` (decimal digits, as hilo writes a key
   * kept as a string, e.g. Kysely's `as: 'string'`): the column's SQL type, read from the catalog at the first
   * check, decides how they are compared, so a key in a text column is compared as a number (`'9'` below `'10'`)
   * and a numeric column stays a numeric probe; the kind only counts while the type cannot be read.
   * `'format'`: ids made by `nextFullId()` (`orders/10-A`): the probe reads the number out of each id that
   * starts with `prefix` and ends in the number or the number, a dash and a node tag of 1 to 16 letters or
   * digits (any tag, since every node draws from the same store); rows of any other form cannot equal an id
   * hilo makes and are ignored. Only decimal numbers without leading zeros count, as hilo writes them.
   * @default 'number'
   */
  readonly kind?: StoredKeyKind | undefined;
  /**
   * With `kind: 'format'`: the text before the number, e.g. `'orders/'`.
   * @default the generator's `idFormat` for the segment (`createHiLo`), else the segment and `/`
   */
  readonly prefix?: string | undefined;
}

/** How keys are written in a stored-key column: see {@link StoredKeyColumn.kind}. */
export type StoredKeyKind = 'number' | 'string' | 'format';

/** A key found in a segment's table, with where it is. */
export interface StoredKey {
  readonly key: bigint;
  /** The table as it was configured (e.g. `orders`). */
  readonly table: string;
  readonly column: string;
  /**
   * What `hilo floor --from` takes to lift the store above every table the segment is checked against, when that
   * is not `table.column` (tenants: `*.orders.id`).
   */
  readonly floorFrom?: string | undefined;
}

/**
 * Where a segment's keys are stored, so that the generator can check every block against them before its
 * first key is handed out (`storedKeys` of `createHiLoGenerator`; `sqlStoredKeys()` reads SQL tables).
 * A segment it knows no table of has no stored keys: both methods resolve with `undefined`.
 */
export interface StoredKeys {
  /** The largest stored key of the segment, with where it is; `undefined` when there is none. */
  largest(segment: string, signal: AbortSignal): Promise<StoredKey | undefined>;
  /**
   * Optional: told by `nextFullId()`, before it draws a key, that the keys of `segment` are written as formatted
   * ids starting with `prefix` (e.g. `orders/`), so that they are read as such (`sqlStoredKeys`: a column that
   * declares no `kind` is read as formatted ids; one declared `'number'` or `'string'` throws a
   * `HiLoConfigurationError` naming `kind: 'format'`). May throw to refuse the id.
   */
  formatted?(segment: string, prefix: string): void;
  /** The largest stored key of the segment inside `[block.first, block.last]`; `undefined` when none. */
  within(segment: string, block: Block, signal: AbortSignal): Promise<StoredKey | undefined>;
  /**
   * Optional: runs `work` (the reservation and its probes) on one connection, when the probes and the hi source
   * share a pooled client (`SqlClient.session`): one connection per verified reservation instead of one per
   * statement, so that a pool the application's waiting transactions hold cannot starve the probe.
   */
  session?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * How many rows of each of the segment's tables hold a key inside `[block.first, block.last]` (an indexed range
   * count). Optional; with a shared store, a block in hand with more rows than hilo handed out keys of it holds
   * the other system's keys (a key column holds each key once), also among the keys hilo handed out.
   */
  counts?(segment: string, block: Block, signal: AbortSignal): Promise<readonly StoredCount[]>;
  /**
   * Optional: the largest stored key inside `blocks` (keys a generator holds and never handed out) of the tables
   * found since the segment's previous check, and of those only: a tenant's table created while the application
   * runs (`tenants: '*'`), which the keys in hand were never checked against. `undefined` when no table is new or
   * none holds a key in them. Asked before each reservation, and before an awaited draw reaches a queued block.
   */
  recheck?(
    segment: string,
    blocks: readonly Block[],
    signal: AbortSignal,
  ): Promise<{ readonly stored: StoredKey; readonly block: Block } | undefined>;
  /**
   * Optional: the tables and key columns the segment's keys are stored in, as configured. `createHiLo` records
   * them next to the hi store at the segment's first reservation and refuses a segment claiming a column the store
   * records for another one (DESIGN rule 13); without it, nothing is recorded for the segment.
   */
  columns?(segment: string): readonly StoredKeyColumn[];
  /**
   * Set when the hi store is shared with another system that reads it with its own settings (an interop
   * preset's `storedKeys`). Then a stored key inside a block is that system's, and the likely cause is a
   * setting that differs between the two sides, not a store that fell behind: the segment is refused with
   * the error `sharedWith.mismatch()` builds (a `HiLoMismatchError` naming the settings), `onStoreBehind:
   * 'lift'` is refused, and every reservation also probes the keys still in hand (see {@link SharedStore}).
   */
  readonly sharedWith?: SharedStore | undefined;
}

/** How many keys one table stores inside a block. */
export interface StoredCount {
  readonly table: string;
  readonly column: string;
  readonly keys: bigint;
}

/** What a found overlap is reported with; `where` says which check found it. */
export interface StoreOverlap {
  readonly segment: string;
  /** The stored key and where it is. */
  readonly stored: StoredKey;
  /** The block it lies in (`start`: the new block whose first key is not above it). */
  readonly block: Block;
  /**
   * `start`: the largest stored key, read before a segment's first reservation, is not below the new block;
   * `block`: a new block holds a stored key; `in-hand`: a key hilo still holds and never handed out is stored.
   */
  readonly where: 'start' | 'block' | 'in-hand';
  /** For `in-hand` found by counting: the keys `stored.table` holds in the block, and how many hilo handed out. */
  readonly counted?: { readonly keys: bigint; readonly handedOut: bigint } | undefined;
}

/**
 * A hi store shared with another system (Hibernate, NHibernate, EF Core, Marten). A key that system stored
 * inside a block hilo read from the store means the two read the store differently; it is found where the
 * other system runs ahead of hilo's reading (a new block holds its keys) and where it runs behind (it writes
 * into a block hilo still holds: each reservation probes the keys in hand that were never handed out).
 */
export interface SharedStore {
  /** Builds the error that refuses the segment, naming the settings that most likely differ. */
  mismatch(overlap: StoreOverlap): HiLoError;
}

/** Number or bigint keys. */
export type KeyType = 'number' | 'bigint';

/** The JavaScript type of keys for a {@link KeyType}. */
export type KeyOf<T extends KeyType> = T extends 'bigint' ? bigint : number;
