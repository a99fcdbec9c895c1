// createGraph(): Prisma's nested-create input translated to hilo-core's graph load — models to tables (`@@map`),
// fields to columns (`@map`), nested `create`/`createMany` to children with the child's foreign-key column. Keys,
// order, batches and rollback are hilo-core's loadGraph().
import { HiLoConfigurationError, loadGraph, type GraphNode, type GraphTable, type HiLoGenerator } from 'hilo-core';
import { poolGraphTarget, propertyRow, type GraphRowMapping } from 'hilo-core/adapter-kit';
import type { HiLoGraphModelMetadata, HiLoModelKey, HiLoPrismaMetadata, ResolvedModel } from './metadata.js';
import { configurationErrors } from './error-messages.js';

/** Where `createGraph()` writes: set as `graph` in {@link hilo}'s options. */
export interface HiLoPrismaGraphOptions {
  /**
   * The driver pool the app gave Prisma's adapter, which Prisma does not expose: a `pg` `Pool`
   * (`new PrismaPg(pool)`: binary COPY), or on MariaDB/MySQL a `mysql2/promise` `Pool` on the same database
   * (multi-row INSERTs). Each `createGraph()` takes one connection of it, in a transaction of its own.
   */
  readonly pool: unknown;
}

/** The argument of `createGraph()`: `data` as for `create()`, one root, many, or an async iterable of them. */
export interface HiLoPrismaGraphArgs<D> {
  /** The roots, each with its children nested as `create`/`createMany`; keys are written back into them. */
  readonly data: D | readonly D[] | AsyncIterable<D>;
  /**
   * How many rows (all tables together) are keyed and written at a time.
   * @default 5000
   */
  readonly batchRows?: number;
}

/** What `createGraph()` wrote. */
export interface HiLoPrismaGraphResult {
  /** Roots read. */
  readonly items: number;
  /** Rows written per model name. */
  readonly rows: Readonly<Record<string, number>>;
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(Symbol.asyncIterator in value);

/** What the extension gives a graph load. */
export interface GraphContext {
  readonly metadata: HiLoPrismaMetadata;
  readonly models: ReadonlyMap<string, ResolvedModel>;
  readonly schema: string | undefined;
  readonly pool: unknown;
  readonly generator: () => Promise<HiLoGenerator<number | bigint>>;
  readonly toField: (model: string, key: HiLoModelKey, value: number | bigint) => number | bigint;
  readonly keyed: (name: string) => ResolvedModel & { key: HiLoModelKey };
}

interface Planned {
  readonly name: string;
  readonly key: HiLoModelKey;
  readonly graph: HiLoGraphModelMetadata;
  readonly table: GraphTable;
  readonly mapping: GraphRowMapping;
}

/** A relation's child model and the child's foreign-key column, or why the load cannot follow it. */
function edgeOf(ctx: GraphContext, model: string, key: HiLoModelKey, field: string): { target: string; via: string } {
  const graph = graphOf(ctx, model);
  const relation = graph.relations[field];
  if (relation === undefined) throw configurationErrors.graphUnknownField(model, field);
  if (relation.fields !== undefined) throw configurationErrors.graphForeignKeySide(model, field, relation.fields);
  const target = ctx.models.get(model)!.relations.get(field)!;
  const opposite = relation.opposite === undefined ? undefined : graphOf(ctx, target).relations[relation.opposite];
  if (opposite?.fields?.length !== 1 || opposite.references?.[0] !== key.field)
    throw configurationErrors.graphNoForeignKey(model, field, target);
  ctx.keyed(target);
  return { target, via: graphOf(ctx, target).columns[opposite.fields[0]!]! };
}

function graphOf(ctx: GraphContext, model: string): HiLoGraphModelMetadata {
  const graph = ctx.metadata.models[model]?.graph;
  if (graph === undefined) throw configurationErrors.graphNoMetadata(model);
  return graph;
}

/** The tables a load from `root` can write: the root's, and its children's through relations the load follows. */
function plan(ctx: GraphContext, root: string): Map<string, Planned> {
  const names = [root];
  for (let i = 0; i < names.length; i++) {
    const model = ctx.keyed(names[i]!);
    for (const field of model.relations.keys()) {
      try {
        const { target } = edgeOf(ctx, model.name, model.key, field);
        if (!names.includes(target)) names.push(target);
      } catch (error) {
        // a relation the load cannot follow is refused when the input uses it
        if (!(error instanceof HiLoConfigurationError)) throw error;
      }
    }
  }
  const tableOf = (name: string) => ctx.metadata.models[name]?.table ?? name;
  const planned = new Map<string, Planned>();
  for (const name of names) {
    const { key } = ctx.keyed(name);
    const graph = graphOf(ctx, name);
    const defaults = graph.defaults ?? {};
    const fields = Object.keys(graph.columns).filter((f) => f === key.field || defaults[f] !== 'database');
    const read = new Map(fields.map((f) => [graph.columns[f]!, f]));
    const fill = new Map<string, () => unknown>();
    for (const f of fields) {
      const found = defaults[f];
      if (found === 'now') fill.set(graph.columns[f]!, () => new Date());
      else if (typeof found === 'object') fill.set(graph.columns[f]!, () => found.value);
    }
    const keyColumn = graph.columns[key.field]!;
    type Write = { property: string; convert: (key: number | bigint) => unknown };
    const write = new Map<string, Write>([
      [keyColumn, { property: key.field, convert: (k) => ctx.toField(name, key, k) }],
    ]);
    const references = Object.entries(graph.relations).flatMap(([field, relation]) => {
      const parent = ctx.models.get(name)!.relations.get(field)!;
      const parentKey = ctx.models.get(parent)?.key;
      if (!names.includes(parent) || relation.fields?.length !== 1 || relation.references?.[0] !== parentKey?.field)
        return [];
      const column = graph.columns[relation.fields[0]!]!;
      write.set(column, { property: relation.fields[0]!, convert: (k) => ctx.toField(parent, parentKey!, k) });
      return [{ column, table: tableOf(parent) }];
    });
    const schema = ctx.metadata.models[name]?.schema ?? ctx.schema;
    const table: GraphTable = {
      table: tableOf(name),
      ...(schema === undefined ? {} : { schema }),
      key: keyColumn,
      segment: key.segment,
      columns: [...read.keys()],
      references,
    };
    planned.set(name, { name, key, graph, table, mapping: { read, fill, write } });
  }
  return planned;
}

/** A create input of `model` as a graph node, checked whole (children too) before the load reads it. */
function nodeOf(
  ctx: GraphContext,
  tables: Map<string, Planned>,
  model: string,
  data: unknown,
  via?: string,
): GraphNode {
  const planned = tables.get(model)!;
  if (!isPlain(data)) throw configurationErrors.graphNotAnObject(model, data);
  const children: GraphNode[] = [];
  const defaults = planned.graph.defaults ?? {};
  for (const [field, value] of Object.entries(data)) {
    if (value === undefined) continue;
    if (field in planned.graph.columns) {
      if (defaults[field] === 'database' && field !== planned.key.field)
        throw configurationErrors.graphDatabaseDefault(model, field);
      continue;
    }
    const edge = edgeOf(ctx, model, planned.key, field);
    if (!isPlain(value)) throw configurationErrors.graphNotAnObject(`${model}.${field}`, value);
    for (const [operation, write] of Object.entries(value)) {
      if (write === undefined) continue;
      let list: unknown = write;
      if (operation === 'createMany') {
        const many = (isPlain(write) ? write : {}) as { data?: unknown; skipDuplicates?: unknown };
        if (many.skipDuplicates === true) throw configurationErrors.graphSkipDuplicates(model, field);
        list = many.data;
      } else if (operation !== 'create') {
        throw configurationErrors.graphNestedWrite(model, field, operation);
      }
      for (const child of Array.isArray(list) ? list : [list])
        children.push(nodeOf(ctx, tables, edge.target, child, edge.via));
    }
  }
  for (const [field, found] of Object.entries(defaults)) {
    if (found === 'prisma' && data[field] === undefined) throw configurationErrors.graphPrismaDefault(model, field);
  }
  return {
    table: planned.table.table,
    row: propertyRow(data, planned.mapping),
    ...(children.length === 0 ? {} : { children }),
    ...(via === undefined ? {} : { via }),
  };
}

/**
 * `createGraph()` of `model`: every root translated (an array whole, before anything is written; an async iterable as
 * it is read), then loaded by hilo-core's loadGraph() through `graph.pool`.
 */
export async function createGraph(
  ctx: GraphContext,
  model: string,
  args: HiLoPrismaGraphArgs<unknown>,
): Promise<HiLoPrismaGraphResult> {
  if (!isPlain(args)) throw configurationErrors.graphNotAnObject(model, args);
  HiLoConfigurationError.checkOptionNames(args, OPTION_NAMES, `${model}.createGraph()`);
  const target = poolGraphTarget(ctx.pool);
  if (target === undefined) throw configurationErrors.graphNeedsPool(ctx.pool);
  const tables = plan(ctx, model);
  const { data } = args;
  const input =
    typeof data === 'object' && data !== null && Symbol.asyncIterator in data
      ? (async function* () {
          for await (const root of data as AsyncIterable<unknown>) yield nodeOf(ctx, tables, model, root);
        })()
      : (Array.isArray(data) ? data : [data]).map((root: unknown) => nodeOf(ctx, tables, model, root));
  const result = await loadGraph({
    target,
    generator: await ctx.generator(),
    tables: [...tables.values()].map((p) => p.table),
    input,
    ...(args.batchRows === undefined ? {} : { batchRows: args.batchRows }),
  });
  const rows = Object.fromEntries([...tables.values()].map((p) => [p.name, result.rows[p.table.table] ?? 0]));
  return { items: result.items, rows };
}

const OPTION_NAMES: ReadonlySet<string> = new Set(['data', 'batchRows']);
