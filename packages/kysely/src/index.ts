/**
 * hilo-kysely: hi/lo keys for Kysely. A plugin fills the missing key of every row in
 * `insertInto(table).values(...)` for the tables you register, from keys already in memory; `insert()`
 * makes sure enough keys are there first. Blocks are reserved on hilo's own connection, never in your
 * transaction.
 * @packageDocumentation
 */
import {
  ColumnNode,
  DefaultInsertValueNode,
  InsertQueryNode,
  PrimitiveValueListNode,
  TableNode,
  ValueListNode,
  ValueNode,
  ValuesNode,
  type OperationNodeSource,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type Kysely,
  type Transaction,
} from 'kysely';
import {
  HiLoConfigurationError,
  HiLoNotReadyError,
  type GraphLoadResult,
  type HiLoGenerator,
  type StoredKeyKind,
} from 'hilo-core';
import { keyToField, openKeySupply, segmentOfTable, type KeyField, type KeySupplyOptions } from 'hilo-core/adapter-kit';
import { configurationErrors } from './error-messages.js';
import { loadKyselyGraph, type HiLoKyselyGraphOptions } from './graph.js';

export type { HiLoKyselyGraphOptions, HiLoKyselyGraphNode, HiLoKyselyGraphRow, HiLoKyselyGraphTable } from './graph.js';

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
  type GraphLoadResult,
  type GraphReference,
} from 'hilo-core';

/** How one table gets its keys. */
export interface HiLoKyselyTable {
  /**
   * The key column.
   * @default "id"
   */
  readonly column?: string;
  /**
   * The segment the keys come from.
   * @default the table's name
   */
  readonly segment?: string;
  /**
   * How the key is sent: a number, a bigint or a decimal string (for `bigint` columns whose keys may pass
   * `Number.MAX_SAFE_INTEGER`).
   * @default "number"
   */
  readonly as?: KeyField;
  /**
   * A table every tenant has a copy of, written with `db.withSchema(tenant)` (a schema per tenant on PostgreSQL, a
   * database per tenant on MariaDB/MySQL), registered once without a schema: `'*'` accepts inserts into any
   * tenant's copy and checks the segment's blocks against every schema (database) holding the table, read from the
   * catalog at each block, so a tenant created while the app runs is checked from its next block on; a list names
   * the tenants. The segment's one store is shared by the tenants, and a floor or lift moves it above all of them.
   * @example
   * ```ts
   * tables: { orders: { tenants: '*' } }
   * ```
   */
  readonly tenants?: '*' | readonly string[];
}

/** Options of {@link hiloKysely}: where keys come from, plus the tables whose keys hilo assigns. */
export interface HiLoKyselyOptions extends KeySupplyOptions {
  /**
   * The tables with hi/lo keys, by name: `true` for the defaults (column `id`, segment = table name), or settings.
   * A table in another schema is named with it (`'shop.orders'`): verified blocks check that table, and an insert
   * that names another schema than the one registered (`withSchema('shop')` on a table registered as `orders`) is
   * refused before a key is drawn, since its blocks were checked against another table. Each tenant's copy may be
   * registered (`'tenant_a.orders'`, `'tenant_b.orders'`: one segment checked against both), or the table once with
   * `tenants: '*'`.
   * @example
   * ```ts
   * tables: { customers: true, orders: true, order_items: { segment: 'items' } }
   * ```
   */
  readonly tables: Readonly<Record<string, true | HiLoKyselyTable>>;
}

/** An insert found no key in memory: call `await hilo.insert(query)` or `await hilo.ensure(table, n)` first. */
export class HiLoKyselyNotReadyError extends HiLoNotReadyError {
  constructor(segment: string, table: string) {
    super(segment);
    this.message =
      `No key for table "${table}" (segment "${segment}") is in memory, and Kysely's plugins cannot wait for the database. ` +
      `Run the insert through \`await hilo.insert(query)\`, or call \`await hilo.ensure("${table}", ` +
      `rows)\` (or \`hilo.warm()\` at start-up) first.`;
  }
}

interface Registered {
  readonly table: string;
  readonly column: string;
  readonly segment: string;
  readonly as: KeyField;
  /** The table's name without its schema. */
  readonly name: string;
  readonly tenants?: '*' | readonly string[] | undefined;
}

/**
 * The `DB` interface of a `Kysely<DB>` or of its `Transaction<DB>` (inferred from the instance alone, so that
 * {@link HiLoKysely.loadGraph}'s options are checked against it on every Kysely release of the range).
 */
export type HiLoKyselyDatabaseOf<K> = K extends Transaction<infer DB> ? DB : K extends Kysely<infer DB> ? DB : never;

/** hilo wired to a Kysely instance's tables; create it with {@link hiloKysely}. */
export interface HiLoKysely {
  /** The plugin to pass to `new Kysely({ plugins: [hilo.plugin] })` or `db.withPlugin(hilo.plugin)`. */
  readonly plugin: KyselyPlugin;
  /**
   * Runs an insert after making sure its rows' missing keys are in memory — the awaited path for batches.
   * @example
   * ```ts
   * await hilo.insert(db.insertInto('order_items').values(items));
   * ```
   */
  insert<R>(query: OperationNodeSource & { execute(): Promise<R> }): Promise<R>;
  /** The next key of a registered table, as its `as` setting says; waits for a reservation when needed. */
  nextId(table: string): Promise<number | bigint | string>;
  /** Resolves once `count` keys of the table are in memory. */
  ensure(table: string, count: number): Promise<void>;
  /** Reserves a block for every registered table, so plain `execute()` finds keys at once. */
  warm(): Promise<void>;
  /**
   * Loads a graph of rows — orders with their items, a tree of categories — into registered tables in bulk, keys
   * from hilo assigned before anything is written (each written into its row object), parents before children, in
   * one transaction: hilo-core's `loadGraph`, with each table's key column and segment from `tables` of hiloKysely(),
   * its columns and foreign keys from the database's catalog. Called with a Kysely transaction (`trx`), it runs in a
   * savepoint of that transaction on its connection, so your commit or rollback decides for the rows. A failure rolls
   * the load back and throws a `HiLoGraphLoadError` naming the table. PostgreSQL needs the `pg` `pool` you gave
   * `PostgresDialect` (binary COPY), SQLite the `database` you gave `SqliteDialect`; MariaDB/MySQL needs nothing more.
   * @example
   * ```ts
   * await hilo.loadGraph(db, {
   *   pool,
   *   tables: ['orders', 'order_items'],
   *   input: [{ table: 'orders', row: { customer_id: 1, total: 3 }, children: [{ table: 'order_items', row: { sku: 'A-1' } }] }],
   * });
   * ```
   */
  loadGraph<K extends { readonly isTransaction: boolean }>(
    db: K,
    options: HiLoKyselyGraphOptions<HiLoKyselyDatabaseOf<K>>,
  ): Promise<GraphLoadResult>;
  /** The generator (connects on first call). */
  generator(): Promise<HiLoGenerator<number | bigint>>;
  /** Closes what hilo opened (its generator and connection); a client or generator you passed in stays open. */
  close(): Promise<void>;
}

/** What SQLite's key guard names as the fix for a row inserted without a key. */
const KYSELY_INSTALL_LINE = 'new Kysely({ dialect, plugins: [hilo.plugin] })';

function unqualified(node: TableNode): string {
  return node.table.identifier.name;
}

/**
 * Refuses an insert into a registered table under another schema than the registered one (`withSchema('shop')`
 * on a table registered as `orders`): the blocks of its segment are checked against the registered table, so
 * stored keys in the other one would go unseen.
 */
function refuseOtherSchema(node: TableNode, table: Registered): void {
  const written = node.table.schema?.name;
  if (written === undefined) return;
  if (table.tenants === '*' || table.tenants?.includes(written) === true) return;
  const dot = table.table.lastIndexOf('.');
  const registered = dot === -1 ? undefined : table.table.slice(0, dot);
  if (written === registered) return;
  const name = unqualified(node);
  throw configurationErrors.otherSchema(written, name, table, registered);
}

/** Whether the insert is `insertInto(t).defaultValues()` (Kysely 0.28 and later; 0.27's node has no such field). */
function defaultValues(node: InsertQueryNode): boolean {
  return (node as { readonly defaultValues?: boolean }).defaultValues === true;
}

/**
 * The registered table an insert goes to: the one registered with the schema it names (`withSchema('a')` on
 * `orders`: `'a.orders'`), else the table registered by its name alone (any registration of that name when the
 * insert names no schema); `refuseOtherSchema` decides whether that one may take a schema it was not registered in.
 */
function registeredFor(node: TableNode, tables: ReadonlyMap<string, Registered>): Registered | undefined {
  const name = unqualified(node);
  const written = node.table.schema?.name;
  const exact = tables.get(written === undefined ? name : `${written}.${name}`);
  if (exact !== undefined) return exact;
  const byName = [...tables.values()].filter((t) => t.name === name);
  return byName.find((t) => t.table === name) ?? byName[0];
}

/** The rows of an insert whose key is missing, or `undefined` when the insert is not one of ours. */
function missingKeys(
  node: InsertQueryNode,
  tables: ReadonlyMap<string, Registered>,
): { table: Registered; rows: number } | undefined {
  if (node.into === undefined) return undefined;
  const table = registeredFor(node.into, tables);
  if (table === undefined) return undefined;
  refuseOtherSchema(node.into, table);
  const index = (node.columns ?? []).findIndex((c) => c.column.name === table.column);
  if (node.values !== undefined && !ValuesNode.is(node.values) && index === -1) {
    // INSERT … SELECT: the rows come from the database, and a key-less row would get the database's idea of a key
    // (SQLite's rowid) or fail on NOT NULL; say so before it is sent
    throw configurationErrors.insertSelect(table);
  }
  if (node.values === undefined || !ValuesNode.is(node.values)) return { table, rows: defaultValues(node) ? 1 : 0 };
  if (index === -1) return { table, rows: node.values.values.length };
  let rows = 0;
  for (const row of node.values.values) {
    const value = ValueListNode.is(row) ? row.values[index] : undefined;
    if (value !== undefined && DefaultInsertValueNode.is(value)) rows++;
    if (PrimitiveValueListNode.is(row) && (row.values[index] === undefined || row.values[index] === null)) rows++;
  }
  return { table, rows };
}

/**
 * Creates hilo for a Kysely app.
 * @example
 * ```ts
 * const hilo = hiloKysely({ url: process.env.DATABASE_URL!, tables: { orders: true, order_items: true } });
 * const db = new Kysely<DB>({ dialect, plugins: [hilo.plugin] });
 * await hilo.warm();
 * const orderId = await hilo.nextId('orders');
 * ```
 */
export function hiloKysely(options: HiLoKyselyOptions): HiLoKysely {
  if (options === null || typeof options !== 'object')
    throw HiLoConfigurationError.invalidOption('options', 'an object', options);
  const { tables: given, ...supplyOptions } = options;
  if (given === null || typeof given !== 'object' || Object.keys(given).length === 0) {
    throw HiLoConfigurationError.invalidOption(
      'tables',
      'an object naming at least one table, e.g. { orders: true }',
      given,
    );
  }
  const tables = new Map<string, Registered>();
  for (const [table, setting] of Object.entries(given)) {
    const s: HiLoKyselyTable = setting === true ? {} : setting;
    if (s === null || typeof s !== 'object')
      throw HiLoConfigurationError.invalidOption(`tables.${table}`, 'true or { column, segment, as }', setting);
    const as = s.as ?? 'number';
    if (as !== 'number' && as !== 'bigint' && as !== 'string')
      throw HiLoConfigurationError.invalidOption(`tables.${table}.as`, '"number", "bigint" or "string"', as);
    const column = s.column ?? 'id';
    if (typeof column !== 'string' || column === '')
      throw HiLoConfigurationError.invalidOption(`tables.${table}.column`, 'a column name', column);
    const { tenants } = s;
    const tenantList = Array.isArray(tenants) && tenants.every((t) => typeof t === 'string' && t !== '');
    if (tenants !== undefined && ((tenants !== '*' && !tenantList) || table.includes('.')))
      throw HiLoConfigurationError.invalidOption(
        `tables.${table}.tenants`,
        "'*' or a list of tenant schemas, on a table named without its schema",
        tenants,
      );
    const name = segmentOfTable(table);
    // by the name as registered: each tenant's copy ('tenant_a.orders', 'tenant_b.orders') is a table of its own
    tables.set(table, { table, column, segment: s.segment ?? name, as, name, tenants });
  }
  // verified blocks probe each registered table's key column (`shop.orders` is table orders in schema shop)
  // (`as: 'string'` keys are decimal digits: hilo-core compares them as numbers in a text column)
  const stored = [...tables.values()].map(({ table, column, segment, as, tenants }) => {
    const dot = table.lastIndexOf('.');
    const kind: StoredKeyKind = as === 'string' ? 'string' : 'number';
    if (tenants !== undefined) return { segment, table, column, kind, tenants };
    return dot === -1
      ? { segment, table, column, kind }
      : { segment, table: table.slice(dot + 1), column, schema: table.slice(0, dot), kind };
  });
  // on SQLite the key guard (keyGuard, on by default) names the plugin as the fix for a key-less row
  const supply = openKeySupply(supplyOptions, {
    owner: 'hiloKysely()',
    columns: stored,
    schemaOption: "the table's schema in `tables`, e.g. `tables: { 'shop.orders': true }`",
    installLine: () => KYSELY_INSTALL_LINE,
  });
  const lookup = (table: string): Registered => {
    const found = tables.get(table) ?? [...tables.values()].find((t) => t.name === segmentOfTable(table));
    if (found === undefined) throw configurationErrors.tableNotRegistered(table);
    return found;
  };

  /** The next key of `t` from memory, converted as its `as` says. */
  const draw = (t: Registered): number | bigint | string => {
    // from memory, else a reservation (or the connection) starts, so a retry after a moment finds keys
    const key = supply.tryNext(t.segment);
    if (key === undefined) throw new HiLoKyselyNotReadyError(t.segment, t.table);
    return keyToField(key, t.as, `${t.table}.${t.column}`);
  };
  const take = (t: Registered): ValueNode => ValueNode.create(draw(t));

  const fill = (node: InsertQueryNode): InsertQueryNode => {
    const found = missingKeys(node, tables);
    if (found === undefined || found.rows === 0) return node;
    const { table } = found;
    if (node.values === undefined || !ValuesNode.is(node.values)) {
      // insert ... default values: one row with only its key
      const withKey = {
        columns: [ColumnNode.create(table.column)],
        values: ValuesNode.create([ValueListNode.create([take(table)])]),
      };
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- Kysely 0.27's props have no defaultValues
      return InsertQueryNode.cloneWith(node, { ...withKey, defaultValues: false } as typeof withKey);
    }
    const columns = node.columns ?? [];
    const index = columns.findIndex((c) => c.column.name === table.column);
    const rows = node.values.values.map((row) => {
      if (PrimitiveValueListNode.is(row)) {
        // plain values stay plain: one parameter list per row, no node per value (a 10,000-row insert
        // would otherwise build 50,000 frozen nodes only to compile them back into parameters)
        if (index === -1) return PrimitiveValueListNode.create([...row.values, draw(table)]);
        if (row.values[index] !== undefined && row.values[index] !== null) return row;
        const values = [...row.values];
        values[index] = draw(table);
        return PrimitiveValueListNode.create(values);
      }
      const values: OperationNode[] = [...row.values];
      if (index === -1) return ValueListNode.create([...values, take(table)]);
      const current = values[index];
      const empty =
        current === undefined ||
        DefaultInsertValueNode.is(current) ||
        (ValueNode.is(current) && (current.value === undefined || current.value === null));
      if (empty) values[index] = take(table);
      return ValueListNode.create(values);
    });
    return InsertQueryNode.cloneWith(node, {
      columns: index === -1 ? [...columns, ColumnNode.create(table.column)] : columns,
      values: ValuesNode.create(rows),
    });
  };

  /** Set while insert() asks the plugin what an insert would need, instead of drawing keys. */
  let counting: Array<{ segment: string; rows: number }> | undefined;
  /** Set by the plugin whenever it sees a query while insert() looks: the query's Kysely runs this plugin. */
  let reached = false;
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (counting !== undefined) reached = true;
      if (!InsertQueryNode.is(args.node)) return args.node;
      if (counting !== undefined) {
        const found = missingKeys(args.node, tables);
        if (found !== undefined && found.rows > 0) counting.push({ segment: found.table.segment, rows: found.rows });
        return args.node;
      }
      return fill(args.node);
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };

  return {
    plugin,
    async insert(query) {
      // Kysely runs the plugins inside toOperationNode(), so the plugin only counts while we look: drawing
      // keys here would take them twice, and throw when the block is empty — the very case insert() is for.
      const wanted: Array<{ segment: string; rows: number }> = [];
      counting = wanted;
      reached = false;
      let node: OperationNode;
      try {
        node = query.toOperationNode();
      } finally {
        counting = undefined;
      }
      // a query built on a Kysely without this plugin would reach the database without keys (NOT NULL, or
      // on SQLite a rowid hilo hands out again later): say which line is missing instead
      if (!reached && InsertQueryNode.is(node) && (missingKeys(node, tables)?.rows ?? 0) > 0) {
        throw configurationErrors.pluginMissing(unqualified(node.into!));
      }
      const generator = wanted.length > 0 ? await supply.generator() : undefined;
      for (const { segment, rows } of wanted) await generator!.ensure(segment, rows);
      return query.execute();
    },
    async nextId(table) {
      const t = lookup(table);
      return keyToField(await (await supply.generator()).next(t.segment), t.as, `${t.table}.${t.column}`);
    },
    async ensure(table, count) {
      await (await supply.generator()).ensure(lookup(table).segment, count);
    },
    // (a table created since start is guarded on SQLite even when its segment needs no block)
    warm: () => supply.warm(new Set([...tables.values()].map((t) => t.segment))),
    async loadGraph(db, options) {
      const resolve = (node: TableNode) => {
        const table = registeredFor(node, tables);
        if (table === undefined) throw configurationErrors.tableNotRegistered(unqualified(node));
        refuseOtherSchema(node, table);
        return table;
      };
      return loadKyselyGraph(db, options, resolve, await supply.generator());
    },
    generator: () => supply.generator(),
    close: () => supply.close(),
  };
}
