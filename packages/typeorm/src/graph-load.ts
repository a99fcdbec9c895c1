/**
 * Graph loads of TypeORM entities: each entity's table for hilo-core's `loadGraph()` (table, schema, hilo key,
 * columns, foreign keys) read from TypeORM's metadata, from a root entity along its relations cascading inserts,
 * and each entity object read through its columns (values prepared by TypeORM's driver, transformers included)
 * with its key, and its children's foreign-key properties, written back. Keys, order, batches and rollback are
 * hilo-core's.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, EntityMetadata, QueryRunner } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type { GraphNode, GraphTable } from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/** Options of `hiloOf(dataSource).loadGraph(Entity, roots, options)`. */
export interface TypeOrmLoadGraphOptions {
  /**
   * Your transaction: the `EntityManager` `dataSource.transaction()` gives, or a `QueryRunner` whose transaction
   * you started. The load then runs on its connection in a savepoint, and your commit or rollback decides for the
   * rows; a failed load leaves your transaction as it was.
   * @default none: the load takes a connection of the DataSource and runs in a transaction of its own
   */
  readonly transaction?: EntityManager | QueryRunner;
  /**
   * How many rows (all tables together) are read, keyed and written at a time.
   * @default 5000
   */
  readonly batchRows?: number;
}

/** An entity's hilo key, as the installation knows it. */
export interface GraphKey {
  readonly column: ColumnMetadata;
  readonly segment: string;
  /** A key as the key property holds it (a number or a bigint). */
  readonly convert: (key: number | bigint) => unknown;
}

/** One entity of a graph load: hilo-core's table, the columns written by name, the relations nested under it. */
interface EntityTable {
  readonly spec: GraphTable & { readonly segment: string };
  readonly key: GraphKey;
  readonly columns: ReadonlyMap<string, ColumnMetadata>;
  /** Relations whose objects are written as this entity's children, with the child's column taking this key. */
  readonly nested: ReadonlyArray<{ readonly property: string; readonly table: EntityTable; readonly via: string }>;
  /** Relations whose objects save() would not insert (not cascaded, or many-to-many): refused when given. */
  readonly unwritten: ReadonlyArray<{ readonly property: string; readonly why: string }>;
  /** The key of the table each foreign key to the load's tables references, by column name. */
  readonly parents: Map<string, GraphKey>;
}

type KeyOf = (metadata: EntityMetadata) => GraphKey | undefined;

const cannot = (metadata: EntityMetadata, what: string) => configurationErrors.graphCannotLoad(metadata.name, what);

/** Refuses, naming it, what of `metadata` a graph load cannot write as save() would. */
function checkEntity(metadata: EntityMetadata): void {
  if (metadata.inheritancePattern !== undefined || metadata.discriminatorColumn !== undefined)
    throw cannot(metadata, 'is part of an entity inheritance (a discriminator column), which graph loads do not write');
  if (metadata.treeType !== undefined && metadata.treeType !== 'adjacency-list')
    throw cannot(metadata, `is a ${metadata.treeType} tree, whose tree tables graph loads do not write`);
  if (metadata.embeddeds.length > 0) throw cannot(metadata, 'has embedded columns, which graph loads do not write');
  for (const column of metadata.columns) {
    if (column.isGenerated && !column.isPrimary && column.generationStrategy !== 'uuid')
      throw cannot(
        metadata,
        `has the database-generated column ${column.propertyName} (${String(column.generationStrategy)}), which a ` +
          'graph load cannot fill',
      );
  }
}

/** The tables of a graph load from `root` along its relations cascading inserts, parents' tables first. */
export function graphTables(root: EntityMetadata, keyOf: KeyOf): Map<EntityMetadata, EntityTable> {
  const tables = new Map<EntityMetadata, EntityTable>();
  const visit = (metadata: EntityMetadata): EntityTable => {
    const found = tables.get(metadata);
    if (found) return found;
    const key = keyOf(metadata);
    if (!key) throw cannot(metadata, 'has no @HiLoGeneratedColumn(), so a graph load cannot give it keys');
    checkEntity(metadata);
    const columns = new Map(
      metadata.columns
        .filter(
          (column) =>
            column !== key.column &&
            column.generatedType === undefined &&
            (column as { isVirtualProperty?: boolean }).isVirtualProperty !== true,
        )
        .map((column) => [column.databaseName, column]),
    );
    const nested: Array<EntityTable['nested'][number]> = [];
    const unwritten: Array<EntityTable['unwritten'][number]> = [];
    const table: EntityTable = {
      spec: {
        table: metadata.tableName,
        ...((metadata.schema ?? metadata.database) ? { schema: (metadata.schema ?? metadata.database)! } : {}),
        key: key.column.databaseName,
        segment: key.segment,
        columns: [...columns.keys()],
        references: [],
      },
      key,
      columns,
      nested,
      unwritten,
      parents: new Map(),
    };
    tables.set(metadata, table);
    for (const relation of metadata.relations) {
      const where = `relation ${relation.propertyName}`;
      const holdsChildren = relation.isOneToMany || (relation.isOneToOne && !relation.isOwning);
      if (relation.isManyToMany) {
        if (relation.isCascadeInsert)
          throw cannot(
            metadata,
            `has the many-to-many ${where} cascading inserts, whose join table graph loads do not write`,
          );
        unwritten.push({ property: relation.propertyName, why: 'a many-to-many relation (a join table)' });
      } else if (holdsChildren && !relation.isCascadeInsert) {
        unwritten.push({ property: relation.propertyName, why: 'a relation that does not cascade inserts' });
      } else if (holdsChildren) {
        if (relation.isLazy) throw cannot(metadata, `has the lazy ${where}, which graph loads do not follow`);
        const joinColumns = relation.inverseRelation?.joinColumns ?? [];
        if (joinColumns.length !== 1 || joinColumns[0]!.referencedColumn !== key.column)
          throw cannot(metadata, `has the ${where}, whose foreign key is not one column referencing its hilo key`);
        nested.push({
          property: relation.propertyName,
          table: visit(relation.inverseEntityMetadata),
          via: joinColumns[0]!.databaseName,
        });
      }
    }
    return table;
  };
  visit(root);
  // each table's foreign keys to the hilo keys of the load's tables: they order the writes
  for (const table of tables.values()) {
    for (const column of table.columns.values()) {
      const parent = column.referencedColumn?.entityMetadata;
      const parentTable = parent && tables.get(parent);
      if (!parentTable || column.referencedColumn !== parentTable.key.column || !column.relationMetadata) continue;
      (table.spec.references as Array<{ column: string; table: string }>).push({
        column: column.databaseName,
        table: parent.tableName,
      });
      table.parents.set(column.databaseName, parentTable.key);
    }
  }
  return tables;
}

/** What a row needs besides its table: the driver's value preparation and the load's one timestamp. */
export interface RowContext {
  readonly prepare: (value: unknown, column: ColumnMetadata) => unknown;
  readonly now: Date;
}

/** A column's value as TypeORM's INSERT would write it; a default only the database computes is refused. */
function valueOf(entity: object, column: ColumnMetadata, context: RowContext): unknown {
  let value: unknown = column.getEntityValue(entity);
  if (value === undefined && column.relationMetadata && column.referencedColumn) {
    const related: unknown = column.relationMetadata.getEntityValue(entity);
    if (typeof related === 'object' && related !== null)
      throw cannot(
        column.entityMetadata,
        `.${column.relationMetadata.propertyName} holds an entity without its key (${column.referencedColumn.propertyName}); ` +
          'a graph load writes only the entities nested under their parent',
      );
  }
  if (value === undefined) {
    if (column.isCreateDate || column.isUpdateDate) value = context.now;
    else if (column.isVersion) value = 1;
    else if (column.isGenerated && column.generationStrategy === 'uuid') value = randomUUID();
    else if (typeof column.default === 'function')
      throw cannot(
        column.entityMetadata,
        `has no value for ${column.propertyName}, whose default (${String((column.default as () => unknown)())}) ` +
          'only the database computes; give the value',
      );
    else value = column.default ?? null;
  }
  // the driver's preparation applies the column's transformer, as TypeORM's INSERT does
  return context.prepare(value, column);
}

/** The input as hilo-core's nodes: each entity object read, and written back, through a proxy by column name. */
export async function* graphInput(
  root: EntityTable,
  input: AsyncIterable<object> | Iterable<object>,
  context: RowContext,
): AsyncGenerator<GraphNode> {
  const nodeOf = (entity: object, table: EntityTable, via?: string): GraphNode => {
    if (typeof entity !== 'object' || entity === null) return { table: table.spec.table, row: entity };
    const written = new Map<string, unknown>();
    const row = new Proxy(written, {
      get(_target, name) {
        if (typeof name !== 'string') return undefined;
        if (written.has(name)) return written.get(name);
        if (name === table.spec.key) {
          const given: unknown = table.key.column.getEntityValue(entity);
          if (given !== undefined && given !== null)
            throw configurationErrors.graphKeyGiven(
              `${table.key.column.entityMetadata.name}.${table.key.column.propertyName}`,
              given,
            );
          return undefined;
        }
        const column = table.columns.get(name);
        return column === undefined ? undefined : valueOf(entity, column, context);
      },
      set(_target, name, value: number | bigint) {
        if (typeof name !== 'string') return false;
        written.set(name, value);
        if (name === table.spec.key) table.key.column.setEntityValue(entity, table.key.convert(value));
        const column = table.columns.get(name);
        // a foreign key of a property of its own (not only the relation's), set as save() leaves it
        const parent = table.parents.get(name);
        if (parent && column && !column.isVirtual) column.setEntityValue(entity, parent.convert(value));
        return true;
      },
    }) as unknown as Record<string, unknown>;
    return {
      table: table.spec.table,
      row,
      children: children(entity, table),
      ...(via === undefined ? {} : { via }),
    };
  };
  function* children(entity: object, table: EntityTable): Generator<GraphNode> {
    // checked here, as hilo-core reads the children: a refusal thrown from the input itself would be a load failure
    for (const { property, why } of table.unwritten) {
      const value = (entity as Record<string, unknown>)[property];
      if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0))
        throw cannot(
          table.key.column.entityMetadata,
          `.${property} holds entities of ${why}, which save() would not insert`,
        );
    }
    for (const { property, table: child, via } of table.nested) {
      const value = (entity as Record<string, unknown>)[property];
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? (value as object[]) : [value]) yield nodeOf(item, child, via);
    }
  }
  for await (const entity of input) yield nodeOf(entity, root);
}

/** Rows per segment of an array of roots: what a load on SQLite reserves before it takes the write lock. */
export function rowsPerSegment(root: EntityTable, roots: readonly object[]): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (entity: unknown, table: EntityTable): void => {
    if (typeof entity !== 'object' || entity === null) return;
    counts.set(table.spec.segment, (counts.get(table.spec.segment) ?? 0) + 1);
    for (const { property, table: child } of table.nested) {
      const value = (entity as Record<string, unknown>)[property];
      for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) count(item, child);
    }
  };
  for (const entity of roots) count(entity, root);
  return counts;
}
