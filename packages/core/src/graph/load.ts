import type { HiLoGenerator } from '../engine/generator.js';
import { checkInteger } from '../engine/checks.js';
import { HiLoConfigurationError, HiLoError, type GraphLoadFailure } from '../errors.js';
import { configurationErrors, graphLoadErrors } from '../error-messages.js';
import { BulkValueError, type BulkConnection, type BulkTableWriter, type GraphTarget } from '../sql/bulk.js';
import type { DriverErrorLike } from '../sql/dialect.js';
import { planGraph, type GraphPlan, type GraphTable, type PlannedTable } from './plan.js';

/**
 * One object of a graph load's input: a row of `table`, with the rows nested under it. The loader gives the row its
 * key (and writes it into `row`), and gives each child the parent's key in the child's reference to the parent's
 * table (`via` names it when there are several).
 */
export interface GraphNode {
  /** The table the row goes to (its `table` in `tables`). */
  readonly table: string;
  /** The row's column values by column name; the key column stays unset (the loader sets it). */
  readonly row: Record<string, unknown>;
  /** Rows that reference this one: written after it, each with this row's key in its reference column. */
  readonly children?: Iterable<GraphNode>;
  /** The child's reference column that takes the parent's key, when it has several to the parent's table. */
  readonly via?: string;
}

/** Options of {@link loadGraph}. */
export interface LoadGraphOptions<K extends number | bigint> {
  /** Where the rows go: `pgGraphTarget({ pool })`, or your connection. */
  readonly target: GraphTarget;
  /** The generator the keys come from (in bulk: one reservation per segment per batch, at most). */
  readonly generator: HiLoGenerator<K>;
  /** Every table the input writes, with its key, columns and references. */
  readonly tables: readonly GraphTable[];
  /** The root objects (each with its children), read as they are needed: the graph is never all in memory. */
  readonly input: AsyncIterable<GraphNode> | Iterable<GraphNode>;
  /**
   * How many rows (all tables together) are read, keyed and written at a time; memory grows with it, not with the
   * input.
   * @default 5000
   */
  readonly batchRows?: number;
}

/** What a graph load wrote. */
export interface GraphLoadResult {
  /** Input items (root objects) read. */
  readonly items: number;
  /** Rows written per table. */
  readonly rows: Readonly<Record<string, number>>;
}

/** One row of the batch: where it goes and which input item it came from. */
interface Entry {
  readonly table: PlannedTable;
  readonly row: Record<string, unknown>;
  readonly item: number;
  readonly parent: Entry | undefined;
  readonly via: string | undefined;
  key?: number | bigint;
}

const SAVEPOINT = 'hilo_graph_load';

/** The reference column of `child` that takes the key of its parent, a row of `parent`. */
function parentColumn(child: PlannedTable, parent: PlannedTable, via: string | undefined, item: number): string {
  const candidates = (child.spec.references ?? [])
    .filter((ref) => ref.table === parent.spec.table)
    .map((ref) => ref.column);
  if (via !== undefined && candidates.includes(via)) return via;
  if (via === undefined && candidates.length === 1) return candidates[0]!;
  throw configurationErrors.graphNoParentReference(child.spec.table, parent.spec.table, item, candidates);
}

/** Reads the input into batches of about `batchRows` rows, parents before their children. */
async function* batches(
  plan: GraphPlan,
  input: AsyncIterable<GraphNode> | Iterable<GraphNode>,
  batchRows: number,
  progress: { items: number },
): AsyncGenerator<Entry[]> {
  let batch: Entry[] = [];
  const visit = (node: GraphNode, item: number, parent: Entry | undefined): void => {
    const table = plan.byName.get(node.table);
    if (table === undefined) throw configurationErrors.graphUnknownTable(node.table, item, [...plan.byName.keys()]);
    if (typeof node.row !== 'object' || node.row === null)
      throw configurationErrors.graphBadRow(table.spec.table, item, node.row);
    const given = node.row[table.spec.key];
    if (given !== undefined && given !== null)
      throw configurationErrors.graphKeyGiven(table.spec.table, table.spec.key, item, given);
    const via = parent === undefined ? undefined : parentColumn(table, parent.table, node.via, item);
    const entry: Entry = { table, row: node.row, item, parent, via };
    batch.push(entry);
    for (const child of node.children ?? []) visit(child, item, entry);
  };
  const iterator = Symbol.asyncIterator in input ? input[Symbol.asyncIterator]() : input[Symbol.iterator]();
  for (;;) {
    let next: IteratorResult<GraphNode>;
    try {
      next = await iterator.next();
    } catch (error) {
      throw graphLoadErrors.inputFailed(progress.items, error);
    }
    if (next.done === true) break;
    visit(next.value, progress.items, undefined);
    progress.items += 1;
    if (batch.length >= batchRows) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The entry of `entries` that the server's error names: by the batch row, or by the key values in its detail. */
function entryNamed(entries: readonly Entry[], place: ReturnType<BulkConnection['locate']>): Entry | undefined {
  if (place.row !== undefined) return entries[place.row];
  const values = place.values;
  if (values === undefined) return undefined;
  return entries.find((entry) =>
    Object.entries(values).every(([column, text]) => {
      const value = column === entry.table.spec.key ? entry.key : entry.row[column];
      return (
        (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') && String(value) === text
      );
    }),
  );
}

/** The typed error for a failure while writing `entries` of `table` (or at the commit, when `table` is undefined). */
function failureOf(
  error: unknown,
  connection: BulkConnection,
  table: PlannedTable | undefined,
  entries: readonly Entry[],
): HiLoError {
  if (error instanceof HiLoError) return error;
  if (error instanceof BulkValueError && table !== undefined) {
    const entry = error.batchRow === undefined ? undefined : entries[error.batchRow];
    const column = error.columnIndex === undefined ? undefined : table.columns[error.columnIndex];
    return graphLoadErrors.badValue(
      { table: table.spec.table, item: entry?.item, key: entry?.key, column },
      error.expected,
      error.value,
    );
  }
  const driverError = (typeof error === 'object' && error !== null ? error : {}) as DriverErrorLike;
  const place = connection.locate(driverError);
  const named = (driverError as { table?: unknown }).table;
  const entry = entryNamed(entries, place);
  const failure: GraphLoadFailure = {
    table: table?.spec.table ?? (typeof named === 'string' ? named : undefined),
    item: entry?.item,
    key: entry?.key,
    column: place.column,
  };
  return graphLoadErrors.refused(failure, connection.displayName, error, connection.isTransient(error));
}

/**
 * Loads a graph of rows — root objects with their children, or rows per table — with keys from hilo, in the
 * database's fastest bulk path (PostgreSQL: binary `COPY`), on one connection in one transaction.
 *
 * The input is read in batches of `batchRows` rows: each batch gets its keys in one reservation per segment (at
 * most), every child gets its parent's key, and each table's rows are written parents first (the order the
 * tables' references give; a self-reference is ordered by nesting). The key given to each row is written into its
 * `row` object, so the caller knows it too. A failure anywhere (a bad value, a constraint, the input throwing, a lost
 * connection) rolls the whole load back, counts its keys as lost (`generator.discard()`), and throws a
 * `HiLoGraphLoadError` naming the table, the input item, the row's key and the server's words.
 *
 * @example
 * ```ts
 * const result = await loadGraph({
 *   target: pgGraphTarget({ pool }),
 *   generator: hilo,
 *   tables: [
 *     { table: 'orders', key: 'id', columns: ['customer'] },
 *     { table: 'order_items', key: 'id', columns: ['sku', 'qty'], references: [{ column: 'order_id', table: 'orders' }] },
 *   ],
 *   input: (async function* () {
 *     yield { table: 'orders', row: { customer: 'ada' }, children: [{ table: 'order_items', row: { sku: 'x', qty: 2 } }] };
 *   })(),
 * });
 * ```
 */
export async function loadGraph<K extends number | bigint>(options: LoadGraphOptions<K>): Promise<GraphLoadResult> {
  if (typeof options !== 'object' || options === null) {
    throw HiLoConfigurationError.invalidOption(
      'loadGraph() options',
      'an object with target, generator, tables, input',
      options,
    );
  }
  HiLoConfigurationError.checkOptionNames(options, OPTION_NAMES, 'loadGraph()');
  const { target, generator, input } = options;
  const batchRows = checkInteger('batchRows', options.batchRows ?? 5000, { min: 1, max: 1_000_000 });
  const plan = planGraph(options.tables);
  const connection = await target.open();
  if (plan.deferred.length > 0 && connection.deferConstraints === undefined) {
    await connection.release(false);
    throw configurationErrors.graphCannotDefer(connection.displayName, plan.deferred);
  }
  const reserved = new Map<string, number>();
  const rows: Record<string, number> = Object.fromEntries(plan.tables.map((table) => [table.spec.table, 0]));
  const progress = { items: 0 };
  let current: { table: PlannedTable | undefined; entries: readonly Entry[] } = { table: undefined, entries: [] };
  let broken = false;
  const run = (sql: string): Promise<unknown> => connection.executor.query(sql);
  try {
    await run(connection.inTransaction ? `savepoint ${SAVEPOINT}` : 'begin');
    try {
      if (plan.deferred.length > 0) await run(connection.deferConstraints!);
      const writers = new Map<PlannedTable, BulkTableWriter>();
      for (const table of plan.tables) {
        const ref = { table: table.spec.table, schema: table.spec.schema };
        writers.set(table, await connection.tableWriter(ref, table.columns));
      }
      for await (const batch of batches(plan, input, batchRows, progress)) {
        const perTable = new Map<PlannedTable, Entry[]>(plan.tables.map((table) => [table, []]));
        for (const entry of batch) perTable.get(entry.table)!.push(entry);
        for (const [table, entries] of perTable) {
          if (entries.length === 0) continue;
          const keys = await generator.reserve(table.segment, entries.length);
          reserved.set(table.segment, (reserved.get(table.segment) ?? 0) + keys.length);
          entries.forEach((entry, i) => {
            entry.key = keys[i]!;
            entry.row[table.spec.key] = entry.key;
          });
        }
        // parents come before their children in `batch`, so every parent has its key by now
        for (const entry of batch) {
          if (entry.parent !== undefined) entry.row[entry.via!] = entry.parent.key;
        }
        for (const table of plan.tables) {
          const entries = perTable.get(table)!;
          if (entries.length === 0) continue;
          current = { table, entries };
          await writers.get(table)!.write(entries.map((entry) => table.columns.map((column) => entry.row[column])));
          rows[table.spec.table]! += entries.length;
        }
        current = { table: undefined, entries: [] };
      }
      await run(connection.inTransaction ? `release savepoint ${SAVEPOINT}` : 'commit');
    } catch (error) {
      const failure = failureOf(error, connection, current.table, current.entries);
      try {
        if (connection.inTransaction) {
          await run(`rollback to savepoint ${SAVEPOINT}`);
          await run(`release savepoint ${SAVEPOINT}`);
        } else {
          await run('rollback');
        }
      } catch {
        // the connection is gone: the server rolled the transaction back when it lost it
        broken = true;
      }
      throw failure;
    }
  } catch (error) {
    for (const [segment, count] of reserved) generator.discard(segment, count);
    if (error instanceof HiLoError) throw error;
    throw failureOf(error, connection, undefined, []);
  } finally {
    await connection.release(broken);
  }
  return { items: progress.items, rows };
}

const OPTION_NAMES: ReadonlySet<string> = new Set(['target', 'generator', 'tables', 'input', 'batchRows']);
