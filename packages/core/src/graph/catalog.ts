import { DIALECTS, GRAPH_CATALOGS } from '../dialects/index.js';
import { configurationErrors } from '../error-messages.js';
import type { CatalogTable } from '../sql/bulk.js';
import type { GraphNode } from './load.js';
import type { SqlDialect, SqlExecutor } from '../sql/sql-client.js';
import type { GraphReference, GraphTable } from './plan.js';

/** A table of a graph load as an adapter knows it (its key and segment); what is not given is read from the catalog. */
export interface GraphTableRequest {
  /** The table's name, as in the database. */
  readonly table: string;
  /** Its schema (database on MariaDB), when not the connection's default. */
  readonly schema?: string;
  /** The key column hilo fills. */
  readonly key: string;
  /** The segment its keys come from (default: the table's name). */
  readonly segment?: string;
  /** The columns written; default: every column of the table without a default, other than the key and references. */
  readonly columns?: readonly string[];
  /** Its references to tables of the load; default: its one-column foreign keys to them, from the catalog. */
  readonly references?: readonly GraphReference[];
}

/** A graph table described from the catalog, with the columns the load leaves to the database. */
export interface DescribedGraphTable extends GraphTable {
  /** The table's columns that are not written (they have a default, or are generated): a row must not set them. */
  readonly unwritten: readonly string[];
}

/**
 * Describes the tables of a graph load from the database's catalog, on `executor` (the connection the load runs
 * on, so that a schema created in the caller's transaction is seen): each table's columns (those without a
 * default, unless `columns` are given) and its one-column foreign keys to the other tables of the load (unless
 * `references` are given), with whether each is DEFERRABLE. A table not found is refused, naming the database.
 *
 * @example
 * ```ts
 * const tables = await describeGraphTables(executor, 'postgres', [
 *   { table: 'orders', key: 'id' },
 *   { table: 'order_items', key: 'id' },
 * ]);
 * ```
 */
export async function describeGraphTables(
  executor: SqlExecutor,
  dialect: SqlDialect,
  requests: readonly GraphTableRequest[],
): Promise<DescribedGraphTable[]> {
  const found: { request: GraphTableRequest; catalog: CatalogTable }[] = [];
  for (const request of requests) {
    const ref = { table: request.table, schema: request.schema };
    const catalog = await GRAPH_CATALOGS[dialect](executor, ref);
    if (catalog === undefined) throw configurationErrors.graphTableMissing(DIALECTS[dialect].displayName, ref);
    found.push({ request, catalog });
  }
  /** The table of the load a foreign key names (by its name, and its schema where the database has them). */
  const loaded = (table: string, schema: string | undefined): string | undefined =>
    found.find((f) => f.request.table === table && (schema === undefined || f.catalog.schema === schema))?.request
      .table;
  return found.map(({ request, catalog }) => {
    const references =
      request.references ??
      catalog.references.flatMap((ref) => {
        const table = loaded(ref.table, ref.schema);
        return table === undefined ? [] : [{ column: ref.column, table, deferrable: ref.deferrable }];
      });
    const referenceColumns = references.map((ref) => ref.column);
    const columns =
      request.columns ??
      catalog.columns
        .filter((c) => !c.defaulted && c.name !== request.key && !referenceColumns.includes(c.name))
        .map((c) => c.name);
    const written = new Set([request.key, ...columns, ...referenceColumns]);
    return {
      table: request.table,
      ...(request.schema === undefined ? {} : { schema: request.schema }),
      key: request.key,
      ...(request.segment === undefined ? {} : { segment: request.segment }),
      columns,
      references,
      unwritten: catalog.columns.filter((c) => !written.has(c.name)).map((c) => c.name),
    };
  });
}

/**
 * The input of a graph load with each node's `table` turned from the name the input uses into the table's (`names`,
 * e.g. a registered `'shop.orders'` into `orders`), and each row checked, when the load reads it, against the
 * columns its table writes: a row that sets a column the load leaves out (one with a default, unless listed in
 * `columns`) is refused, instead of its value being dropped. Nodes of other tables pass as they are.
 */
export async function* checkedGraphInput(
  input: AsyncIterable<GraphNode> | Iterable<GraphNode>,
  tables: readonly DescribedGraphTable[],
  names: ReadonlyMap<string, string>,
): AsyncGenerator<GraphNode> {
  const wrap = (node: GraphNode): GraphNode => {
    const table = tables.find((t) => t.table === (names.get(node.table) ?? node.table));
    if (table === undefined) return node;
    const written = new Set([table.key, ...table.columns, ...(table.references ?? []).map((ref) => ref.column)]);
    let seen = false;
    const { children } = node;
    return {
      table: table.table,
      ...(node.via === undefined ? {} : { via: node.via }),
      // checked when the load reads it, so that a refusal is the load's own error (not the input's), once
      get row() {
        if (!seen && typeof node.row === 'object' && node.row !== null) {
          for (const [column, value] of Object.entries(node.row)) {
            if (value !== undefined && !written.has(column))
              throw configurationErrors.graphColumnNotWritten(node.table, column, table.unwritten.includes(column));
          }
        }
        seen = true;
        return node.row;
      },
      ...(children === undefined
        ? {}
        : {
            children: {
              *[Symbol.iterator]() {
                for (const child of children) yield wrap(child);
              },
            },
          }),
    };
  };
  for await (const node of input) yield wrap(node);
}
