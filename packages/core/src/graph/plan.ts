import { configurationErrors } from '../error-messages.js';

/**
 * A foreign key of a graph table: `column` holds a key of `table` (another table of the load, or its own for a
 * self-reference). A nested row gets its parent's key in the reference that names the parent's table.
 */
export interface GraphReference {
  /** The foreign-key column of this table. */
  readonly column: string;
  /** The referenced table (its `table` in `tables`). */
  readonly table: string;
  /**
   * Whether the foreign key is `DEFERRABLE`: a cycle of references is then loaded with the check deferred to the
   * commit (PostgreSQL's `SET CONSTRAINTS ALL DEFERRED`) instead of being refused.
   * @default false
   */
  readonly deferrable?: boolean;
}

/** One table a graph load writes. */
export interface GraphTable {
  /** The table's name, as in the database. */
  readonly table: string;
  /** Its schema, when not the connection's default. */
  readonly schema?: string;
  /** The key column hilo fills. */
  readonly key: string;
  /**
   * The segment its keys come from.
   * @default the table's name
   */
  readonly segment?: string;
  /** The other columns written, from each row's properties of the same name (references' columns are added). */
  readonly columns: readonly string[];
  /** Its foreign keys to tables of the load; they decide the order tables are written in. */
  readonly references?: readonly GraphReference[];
}

/** A table of the plan: its description and the columns written, key first. */
export interface PlannedTable {
  readonly spec: GraphTable;
  readonly segment: string;
  readonly columns: readonly string[];
}

/** The order tables are written in (parents first), and whether the load must defer constraints to its commit. */
export interface GraphPlan {
  readonly tables: readonly PlannedTable[];
  readonly byName: ReadonlyMap<string, PlannedTable>;
  /** The cycle of deferrable references the order ignores (empty: none). */
  readonly deferred: readonly string[];
}

/** Whether `value` is an array with at least one element (without narrowing a typed array to `any[]`). */
function isNonEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

const label = (table: string, reference: GraphReference): string => `${table}.${reference.column} → ${reference.table}`;

/**
 * Orders `tables` so that every table comes after the tables it references (a self-reference is ordered inside its
 * table, by nesting). A cycle is refused naming its foreign keys, unless each cycle has a deferrable one: those are
 * left to the commit.
 */
export function planGraph(tables: readonly GraphTable[]): GraphPlan {
  if (!isNonEmptyArray(tables)) throw configurationErrors.graphNoTables(tables);
  const byName = new Map<string, PlannedTable>();
  for (const spec of tables) {
    if (byName.has(spec.table)) throw configurationErrors.graphDuplicateTable(spec.table);
    const columns = [spec.key, ...spec.columns.filter((column) => column !== spec.key)];
    for (const reference of spec.references ?? []) {
      if (!columns.includes(reference.column)) columns.push(reference.column);
    }
    byName.set(spec.table, { spec, segment: spec.segment ?? spec.table, columns });
  }
  for (const spec of tables) {
    for (const reference of spec.references ?? []) {
      if (!byName.has(reference.table))
        throw configurationErrors.graphUnknownReference(spec.table, reference.column, reference.table);
    }
  }
  const ordered: PlannedTable[] = [];
  const done = new Set<string>();
  const deferred: string[] = [];
  let ignoreDeferrable = false;
  while (done.size < tables.length) {
    const ready = tables.filter(
      (spec) =>
        !done.has(spec.table) &&
        (spec.references ?? []).every(
          (ref) => ref.table === spec.table || done.has(ref.table) || (ignoreDeferrable && ref.deferrable === true),
        ),
    );
    if (ready.length > 0) {
      for (const spec of ready) {
        done.add(spec.table);
        ordered.push(byName.get(spec.table)!);
      }
      continue;
    }
    const remaining = tables.filter((spec) => !done.has(spec.table));
    const open = remaining.flatMap((spec) =>
      (spec.references ?? [])
        .filter((ref) => ref.table !== spec.table && !done.has(ref.table))
        .map((ref) => ({ spec, ref })),
    );
    if (!ignoreDeferrable && open.some(({ ref }) => ref.deferrable === true)) {
      ignoreDeferrable = true;
      deferred.push(
        ...open.filter(({ ref }) => ref.deferrable === true).map(({ spec, ref }) => label(spec.table, ref)),
      );
      continue;
    }
    throw configurationErrors.graphCycle(open.map(({ spec, ref }) => label(spec.table, ref)));
  }
  return { tables: ordered, byName, deferred };
}
