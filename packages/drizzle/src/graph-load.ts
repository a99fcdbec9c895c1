/**
 * Graph loads for Drizzle tables: each table's description for hilo-core's `loadGraph()` (its name, schema, hilo key
 * column, other columns and foreign keys) read from the Drizzle table, and each row translated between Drizzle's
 * property names and the database's column names. Keys, order, batches and rollback are hilo-core's.
 */
import { getTableColumns, getTableName, is, Placeholder, SQL, Table } from 'drizzle-orm';
import { getTableConfig as mysqlTableConfig, MySqlTable } from 'drizzle-orm/mysql-core';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { GraphNode, GraphReference, GraphTable } from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/**
 * One object of a Drizzle graph load's input: a row of `table`, with the rows nested under it. hilo gives the row its
 * key and writes it into `row` under the key column's property name; each child gets its parent's key in its
 * foreign key to the parent's table, written into the child's `row` too.
 */
export interface DrizzleGraphNode {
  /** The Drizzle table the row goes to: one of the load's `tables`. */
  readonly table: Table;
  /** The row's values by property name, as for `db.insert(table).values(row)`; leave the key (and the parent's key) out. */
  readonly row: Record<string, unknown>;
  /** Rows that reference this one: written after it, each with this row's key in its foreign key to this table. */
  readonly children?: Iterable<DrizzleGraphNode>;
  /** The property of the child's foreign key that takes the parent's key, when it has several to the parent's table. */
  readonly via?: string;
}

/** Options of `hilo.loadGraph(db, options)`. */
export interface DrizzleLoadGraphOptions {
  /** Every Drizzle table the input writes; each needs its key column's `$defaultFn(hilo.key(...))`. */
  readonly tables: readonly Table[];
  /** The root objects (each with its children), read as they are needed: the graph is never all in memory. */
  readonly input: AsyncIterable<DrizzleGraphNode> | Iterable<DrizzleGraphNode>;
  /**
   * How many rows (all tables together) are read, keyed and written at a time.
   * @default 5000
   */
  readonly batchRows?: number;
}

/** What a Drizzle column offers the translation (fields every drizzle-orm release of the peer range has). */
interface ColumnLike {
  name: string;
  default?: unknown;
  defaultFn?: (() => unknown) & { segment?: unknown };
  onUpdateFn?: () => unknown;
  hasDefault?: boolean;
  generated?: unknown;
  generatedIdentity?: { type?: string };
  mapToDriverValue(value: unknown): unknown;
}

/** A Drizzle table as a graph load sees it: hilo-core's description, and its rows translated to column names. */
export interface MappedTable {
  readonly spec: GraphTable & { readonly segment: string };
  /** A child's `via` property as its column name. */
  columnOf(property: string): string;
  /** A row hilo-core reads and writes by column name, backed by the caller's row (keys written back into it). */
  rowOf(row: Record<string, unknown>): Record<string, unknown>;
}

const configOf = (table: Table) =>
  is(table, PgTable)
    ? pgTableConfig(table)
    : is(table, MySqlTable)
      ? mysqlTableConfig(table)
      : is(table, SQLiteTable)
        ? sqliteTableConfig(table)
        : undefined;

/** The table's schema (PostgreSQL) or database (MySQL); SQLite's tables have none. */
const schemaOf = (config: object): string | undefined => (config as { schema?: string }).schema;

/** The property and column of a table's hilo key (the one column whose `$defaultFn` is `hilo.key(...)`). */
function keyOf(table: Table): [string, ColumnLike] {
  const keys = Object.entries(getTableColumns(table) as Record<string, ColumnLike>).filter(
    ([, column]) => typeof column.defaultFn?.segment === 'string',
  );
  if (keys.length === 0) throw configurationErrors.graphNoKeyColumn(getTableName(table));
  if (keys.length > 1)
    throw configurationErrors.graphManyKeyColumns(
      getTableName(table),
      keys.map(([, column]) => column.name),
    );
  return keys[0]!;
}

/**
 * Reads each of `tables` for hilo-core's loadGraph(); `convert` turns a key of a segment into the key column's field
 * (as `hilo.key(segment, as)` does), for the rows' write-back.
 */
export function mapTables(
  tables: readonly Table[],
  convert: (segment: string, key: number | bigint) => unknown,
): Map<Table, MappedTable> {
  const configs = tables.map((table) => {
    const config = configOf(table);
    if (config === undefined) throw configurationErrors.graphNotATable(table);
    return config;
  });
  const keys = new Map(tables.map((table) => [table, keyOf(table)] as const));
  return new Map(
    tables.map((table, t) => {
      const name = getTableName(table);
      const [keyProperty, keyColumn] = keys.get(table)!;
      const segment = keyColumn.defaultFn!.segment as string;
      const references: GraphReference[] = [];
      // a reference column's segment: the key a child takes from its parent is converted like the parent's key
      const referenced = new Map<string, string>();
      for (const foreignKey of configs[t]!.foreignKeys) {
        const { columns, foreignColumns, foreignTable } = foreignKey.reference();
        const parentKey = keys.get(foreignTable)?.[1];
        if (columns.length !== 1 || foreignColumns[0]?.name !== parentKey?.name) continue;
        references.push({ column: columns[0]!.name, table: getTableName(foreignTable) });
        referenced.set(columns[0]!.name, parentKey!.defaultFn!.segment as string);
      }
      const columns = Object.entries(getTableColumns(table) as Record<string, ColumnLike>).filter(
        ([, column]) => column.generated === undefined && column.generatedIdentity?.type !== 'always',
      );
      const byColumn = new Map(columns.map(([property, column]) => [column.name, { property, column }]));
      const postgres = is(table, PgTable);
      const valueOf = (row: Record<string, unknown>, property: string, column: ColumnLike): unknown => {
        let value = row[property];
        if (value === undefined) {
          value = column.defaultFn?.() ?? column.onUpdateFn?.() ?? column.default;
          if (is(value, SQL) || (value === undefined && column.hasDefault === true && !referenced.has(column.name)))
            throw configurationErrors.graphDatabaseDefault(name, property);
        }
        if (is(value, SQL) || is(value, Placeholder)) throw configurationErrors.graphSqlValue(name, property);
        if (value === null || value === undefined) return null;
        // PostgreSQL's binary COPY encodes Dates and arrays itself; Drizzle's mapping would make them text
        return postgres && (value instanceof Date || Array.isArray(value)) ? value : column.mapToDriverValue(value);
      };
      type Target = { row: Record<string, unknown>; key?: number | bigint };
      const handler: ProxyHandler<Target> = {
        get(target, name) {
          if (name === keyColumn.name) return target.key ?? target.row[keyProperty];
          const found = typeof name === 'string' ? byColumn.get(name) : undefined;
          return found === undefined ? undefined : valueOf(target.row, found.property, found.column);
        },
        set(target, name, value: number | bigint) {
          const parent = typeof name === 'string' ? referenced.get(name) : undefined;
          if (name === keyColumn.name) {
            target.key = value;
            target.row[keyProperty] = convert(segment, value);
          } else if (parent !== undefined) {
            target.row[byColumn.get(name as string)!.property] = convert(parent, value);
          }
          return true;
        },
      };
      const mapped: MappedTable = {
        spec: {
          table: name,
          ...(schemaOf(configs[t]!) === undefined ? {} : { schema: schemaOf(configs[t]!)! }),
          key: keyColumn.name,
          segment,
          columns: columns.map(([, column]) => column.name),
          references,
        },
        columnOf(property) {
          const column = (getTableColumns(table) as Record<string, ColumnLike>)[property]?.name;
          if (column === undefined) throw configurationErrors.graphUnknownVia(name, property);
          return column;
        },
        rowOf: (row) => (typeof row === 'object' && row !== null ? new Proxy({ row }, handler) : row),
      };
      return [table, mapped];
    }),
  );
}

/** The input translated, lazily, to hilo-core's nodes: tables by name, rows by column name. */
export async function* graphInput(
  mapped: ReadonlyMap<Table, MappedTable>,
  input: AsyncIterable<DrizzleGraphNode> | Iterable<DrizzleGraphNode>,
): AsyncGenerator<GraphNode> {
  const nodeOf = (node: DrizzleGraphNode): GraphNode => {
    const table = mapped.get(node.table);
    // a table not in `tables`: hilo-core refuses it by name, with the item's index and the tables it knows
    if (table === undefined)
      return { table: String(is(node.table, Table) ? getTableName(node.table) : node.table), row: node.row };
    return {
      table: table.spec.table,
      row: table.rowOf(node.row),
      ...(node.children === undefined ? {} : { children: children(node.children) }),
      ...(node.via === undefined ? {} : { via: table.columnOf(node.via) }),
    };
  };
  function* children(nodes: Iterable<DrizzleGraphNode>): Generator<GraphNode> {
    for (const node of nodes) yield nodeOf(node);
  }
  for await (const node of input) yield nodeOf(node);
}
