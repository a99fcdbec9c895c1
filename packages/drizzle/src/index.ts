/**
 * hilo-drizzle: hi/lo keys for Drizzle ORM tables. A column's `$defaultFn` draws its key from memory, so a
 * row has its key before the insert; blocks are reserved on hilo's own connection, never in your transaction.
 * @packageDocumentation
 */
import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import {
  HiLoConfigurationError,
  HiLoNotReadyError,
  loadGraph,
  type GraphLoadResult,
  type HiLoGenerator,
  type StoredKeyColumn,
} from 'hilo-core';
import {
  checkOneSegmentPerColumn,
  keysInMemoryOnly,
  keyToField,
  openKeySupply,
  segmentOfTable,
  type KeyField,
  type KeySupplyOptions,
} from 'hilo-core/adapter-kit';
import { graphTargetOf, holdsWriteLock } from './drizzle-internals.js';
import { configurationErrors } from './error-messages.js';
import { graphInput, mapTables, type DrizzleLoadGraphOptions } from './graph-load.js';

export type { KeySupplyOptions as HiLoDrizzleOptions } from 'hilo-core/adapter-kit';
export type { DrizzleGraphNode, DrizzleLoadGraphOptions } from './graph-load.js';
export type { GraphLoadResult } from 'hilo-core';
// hilo-core's typed errors, so that `instanceof` needs no second import (the same classes: one check catches both)
export {
  HiLoError,
  HiLoConfigurationError,
  HiLoNotReadyError,
  HiLoSourceUnavailableError,
  HiLoSourceError,
  HiLoTimeoutError,
  HiLoOverflowError,
  HiLoExhaustedError,
  HiLoMismatchError,
  HiLoStoreBehindError,
  HiLoSynchronousStandbyError,
  HiLoKeyLimitError,
  HiLoClosedError,
  HiLoGraphLoadError,
  type HiLoErrorCode,
  type HiLoHint,
  type MismatchOverlap,
  type StoreBehindDetails,
} from 'hilo-core';

/** `$defaultFn` found no key in memory: the block was empty (not warmed, or a batch larger than the block). */
export class HiLoDrizzleNotReadyError extends HiLoNotReadyError {
  constructor(segment: string) {
    super(segment);
    this.message =
      `No key for segment "${segment}" is in memory for Drizzle's $defaultFn, which cannot wait for the database. ` +
      `Call \`await hilo.warm()\` at start-up, and \`await hilo.ensure(table, rows.length)\` before inserting a large batch.`;
  }
}

type FieldOf<F extends KeyField> = F extends 'bigint' ? bigint : F extends 'string' ? string : number;

/**
 * A key source for one segment, to pass to `$defaultFn` — call it and you get a key from memory — with an
 * awaited `next()` for keys you need before building the row.
 */
export interface HiLoKey<T> {
  /** The next key from memory; throws {@link HiLoDrizzleNotReadyError} when none is there. */
  (): T;
  /** The segment the keys come from. */
  readonly segment: string;
  /** The next key, waiting for a reservation when the block is empty. */
  next(): Promise<T>;
}

/** Something that names a segment: a Drizzle table (its name is the segment) or the segment itself. */
export type SegmentTarget = Table | string;

/** hilo wired to your Drizzle tables; create one per application with {@link hiloDrizzle}. */
export interface HiLoDrizzle {
  /**
   * A `$defaultFn` for a hi/lo key column, drawing from `segment` (usually the table's name).
   * `as` must match the column's mode: `'number'` for `integer()`/`bigint({ mode: 'number' })`,
   * `'bigint'` for `bigint({ mode: 'bigint' })`.
   * @example
   * ```ts
   * const orders = pgTable('orders', { id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')) });
   * ```
   */
  key(segment: string): HiLoKey<number>;
  key<F extends KeyField>(segment: string, as: F): HiLoKey<FieldOf<F>>;
  /**
   * Reserves a block for every segment given to `key()` (or those named), so `$defaultFn` is served at once.
   * Pass your tables (not only their names): hilo then also knows where their keys are stored, and checks
   * every block against them before handing out a key of it (`verifyBlocks`, on by default).
   * @example
   * ```ts
   * await hilo.warm([customers, orders, orderItems]);
   * ```
   */
  warm(targets?: readonly SegmentTarget[]): Promise<void>;
  /** Resolves once `count` keys of the table's segment are in memory: call it before a large `insert().values([...])`. */
  ensure(target: SegmentTarget, count: number): Promise<void>;
  /** The next key of the table's segment, converted like its `key()` column; waits for a reservation when needed. */
  nextId(target: SegmentTarget): Promise<number | bigint | string>;
  /**
   * Loads a graph of rows — root objects with their children — into Drizzle tables in bulk, with keys from hilo:
   * hilo-core's `loadGraph()` (one connection, one transaction, parents first, PostgreSQL's binary `COPY`, multi-row
   * INSERTs on MariaDB/MySQL and SQLite), told about your tables by Drizzle itself. Each table's key column is the one
   * whose `$defaultFn` is `hilo.key(...)`, its references its foreign keys to the load's other tables (itself
   * included); rows use the tables' property names, and each row's key (and each child's parent key) is written into
   * it under its property name. `db` is your Drizzle database on node-postgres, mysql2 or better-sqlite3 (the load
   * takes one connection and runs in a transaction of its own), or a Drizzle transaction on node-postgres or mysql2
   * (it runs in a savepoint of that transaction, which your commit or rollback decides). A failure rolls the load
   * back and throws `HiLoGraphLoadError` naming the table, the input item and the key.
   * @example
   * ```ts
   * await hilo.loadGraph(db, {
   *   tables: [orders, orderItems],
   *   input: [{ table: orders, row: { reference: 'A-1' }, children: [{ table: orderItems, row: { sku: 'TEA', quantity: 2 } }] }],
   * });
   * ```
   */
  loadGraph(db: object, options: DrizzleLoadGraphOptions): Promise<GraphLoadResult>;
  /** The generator (connects on first call). */
  generator(): Promise<HiLoGenerator<number | bigint>>;
  /** Closes what hilo opened (its generator and connection); a client or generator you passed in stays open. */
  close(): Promise<void>;
}

/** The segment a target names: the segment of the table's hilo key column, else the table's name. */
const segmentOf = (target: SegmentTarget): string =>
  typeof target === 'string' ? target : (keyColumnsOf(target)[0]?.segment ?? segmentOfTable(getTableName(target)));

/** The columns of a Drizzle table whose `$defaultFn` is a hilo key, as verified blocks probe them. */
function keyColumnsOf(table: Table): StoredKeyColumn[] {
  const name = getTableName(table);
  // every dialect's table keeps its schema (PostgreSQL) or database (MySQL) under this registered symbol
  const schema = (table as unknown as Record<symbol, unknown>)[Symbol.for('drizzle:Schema')];
  const columns: StoredKeyColumn[] = [];
  for (const column of Object.values(getTableColumns(table)) as Array<{ name: string; defaultFn?: unknown }>) {
    const segment = (column.defaultFn as Partial<HiLoKey<unknown>> | undefined)?.segment;
    if (typeof segment !== 'string') continue;
    columns.push({ segment, table: name, column: column.name, ...(typeof schema === 'string' ? { schema } : {}) });
  }
  return columns;
}

/**
 * The columns SQLite's key guard protects in a table hilo was given: its hilo key columns, or, when it has none
 * (a `$defaultFn(hilo.key(...))` forgotten), its one primary key column, whose keys then come from the segment
 * named like the table, unless that column has a default or `autoIncrement` of its own.
 */
function guardedColumnsOf(table: Table): StoredKeyColumn[] {
  const keys = keyColumnsOf(table);
  if (keys.length > 0) return keys;
  type Described = { name: string; primary?: unknown; default?: unknown; defaultFn?: unknown; autoIncrement?: unknown };
  const primary = (Object.values(getTableColumns(table)) as Described[]).filter((column) => column.primary === true);
  // a key given on purpose by a default, a $defaultFn of another kind or AUTOINCREMENT is not hilo's: leave it
  // alone (Drizzle's hasDefault is no sign: it is set on every integer primary key, for the rowid)
  const own = primary[0]!;
  if (primary.length !== 1 || own.default !== undefined || own.defaultFn !== undefined || own.autoIncrement === true)
    return [];
  const name = getTableName(table);
  const schema = (table as unknown as Record<symbol, unknown>)[Symbol.for('drizzle:Schema')];
  return [
    {
      segment: segmentOfTable(name),
      table: name,
      column: own.name,
      ...(typeof schema === 'string' ? { schema } : {}),
    },
  ];
}

/** What SQLite's key guard names as the fix for a row of `segment` inserted without a key (at most 60 characters). */
function drizzleInstallLine(segment: string): string {
  const line = `.$defaultFn(hilo.key('${segment}')) on the key column`;
  return /^[\x20-\x5b\x5d-\x7e]{1,60}$/.test(line) ? line : `.$defaultFn(hilo.key(...)) on the key column`;
}

/**
 * Creates hilo for a Drizzle app. Pass the database URL (hilo opens its own small pool, so reservations
 * commit on their own), a `SqlClient`, or a generator.
 * @example
 * ```ts
 * const hilo = hiloDrizzle({ url: process.env.DATABASE_URL!, blockSize: 100 });
 * const orders = pgTable('orders', { id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('orders')) });
 * await hilo.warm();
 * ```
 */
export function hiloDrizzle(options: KeySupplyOptions): HiLoDrizzle {
  // where keys are stored, learnt from the tables passed to warm(), ensure() and nextId(): a table is defined
  // with hilo.key() in it, so hilo exists before any table it could be given at creation
  const stored = new Map<Table, StoredKeyColumn[]>();
  // on SQLite the key guard (keyGuard, on by default) names the key column's $defaultFn as the fix
  const supply = openKeySupply(options, {
    owner: 'hiloDrizzle()',
    columns: () => [...stored.values()].flat(),
    schemaOption: "define the table with pgSchema('shop').table(...) (MySQL: mysqlSchema)",
    installLine: drizzleInstallLine,
    keyGuardColumns: () => [...stored.keys()].flatMap(guardedColumnsOf),
    // $defaultFn cannot wait for a reservation: core keeps a standby block in hand (issue 53: a pgSchema table per
    // tenant, whose reservations probe every tenant's table, ran dry at the first block boundary)
    drawsWithoutWaiting: true,
  });
  const fields = new Map<string, KeyField>();
  // segments whose keys are checked against a table hilo was given; one without is said once, never silently off
  const covered = new Set<string>();
  const warned = new Set<string>();
  const learn = (target: SegmentTarget): string => {
    if (typeof target === 'string') return target;
    if (!stored.has(target)) {
      // `hilo.key(segment, 'string')` keys are decimal digits: hilo-core compares them as numbers in a text column
      const columns = keyColumnsOf(target).map((c): StoredKeyColumn => ({
        ...c,
        kind: fields.get(c.segment) === 'string' ? 'string' : 'number',
      }));
      // two table definitions of one table with different segments: refused here, before any key is drawn
      checkOneSegmentPerColumn([...[...stored.values()].flat(), ...columns]);
      stored.set(target, columns);
      for (const c of columns) covered.add(c.segment);
    }
    return segmentOf(target);
  };
  const noteUnchecked = (segment: string) => {
    if (covered.has(segment) || warned.has(segment) || options.verifyBlocks === false) return;
    warned.add(segment);
    process.emitWarning(
      `hilo: segment "${segment}" hands out keys, and no table that uses hilo.key('${segment}') was given to hilo, ` +
        `so its blocks are not checked against the keys already stored (verified blocks). Pass that table to ` +
        `hilo.warm([...]) (or ensure()/nextId()) at start-up, or set verifyBlocks: false if you want no check.`,
      { code: 'HILO_STORED_KEYS_UNCHECKED' },
    );
  };

  const convert = (segment: string, key: number | bigint) =>
    keyToField(key, fields.get(segment) ?? 'number', `segment "${segment}"`);
  const nextOf = async (segment: string) => convert(segment, await (await supply.generator()).next(segment));
  const draw = (segment: string): number | bigint => {
    noteUnchecked(segment);
    // from memory, else a reservation (or the connection) starts, so a retry after a moment finds keys
    const key = supply.tryNext(segment);
    if (key === undefined) throw new HiLoDrizzleNotReadyError(segment);
    return key;
  };

  const hilo: HiLoDrizzle = {
    key(segment: string, as: KeyField = 'number') {
      segmentOfTable(segment);
      if (as !== 'number' && as !== 'bigint' && as !== 'string')
        throw HiLoConfigurationError.invalidOption('as', '"number", "bigint" or "string"', as);
      const known = fields.get(segment);
      if (known !== undefined && known !== as) throw configurationErrors.segmentAsConflict(segment, known, as);
      fields.set(segment, as);
      const fn = (() => convert(segment, draw(segment))) as HiLoKey<never>;
      Object.defineProperty(fn, 'segment', { value: segment });
      (fn as { next: () => Promise<unknown> }).next = async () => {
        noteUnchecked(segment);
        return nextOf(segment);
      };
      return fn as never;
    },
    // (a table learnt now, or created since start, is guarded on SQLite even when its segment needs no block)
    warm: async (targets) => supply.warm(targets === undefined ? fields.keys() : targets.map(learn)),
    async ensure(target, count) {
      await (await supply.generator()).ensure(learn(target), count);
    },
    nextId: async (target) => nextOf(learn(target)),
    async loadGraph(db, { tables, input, ...rest }) {
      const target = graphTargetOf(db);
      if (!Array.isArray(tables))
        throw HiLoConfigurationError.invalidOption('tables', 'an array of Drizzle tables', tables);
      const mapped = mapTables(tables, convert);
      tables.forEach(learn);
      const generator = await supply.generator();
      return loadGraph({
        target,
        generator: holdsWriteLock(db)
          ? keysInMemoryOnly(generator, configurationErrors.graphSqliteKeysNotInMemory)
          : generator,
        tables: [...mapped.values()].map((table) => table.spec),
        input: graphInput(mapped, input),
        ...rest,
      });
    },
    generator: () => supply.generator(),
    close: () => supply.close(),
  };
  return hilo;
}
