import type { SequenceSourceOptions } from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import { largestKeyIn, type TableSourceOptions } from '../sources/table-source.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import { validateSegment } from '../engine/segment-name.js';
import { DIALECTS } from '../dialects/index.js';
import { convertDriverError } from '../sql/driver-errors.js';
import type { SqlSourceKind } from './sources.js';
import { segmentSource } from './floor.js';
import { columnRegistry } from './column-registry.js';
import { mismatchErrors, sourceErrors } from '../error-messages.js';

/** Options of {@link moveColumn}. */
export interface MoveColumnOptions {
  /** The table whose key column moves, e.g. `orders`. */
  readonly table: string;
  /**
   * Its key column.
   * @default 'id'
   */
  readonly column?: string;
  /** That table's schema (PostgreSQL) or database (MySQL); default: the connection's. */
  readonly schema?: string;
  /** The segment that keys the column from now on. */
  readonly to: string;
  /**
   * The segments' source kind (both segments' stores are of this kind).
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind;
  /**
   * How the source is configured (hi table name, schema of the store and of `hilo_columns`, …). For sequences
   * without `increment`, each existing sequence's INCREMENT BY is used.
   */
  readonly sourceOptions?: Partial<SequenceSourceOptions> & TableSourceOptions;
}

/** What {@link moveColumn} did. */
export interface MoveColumnResult {
  /** The column as the store records it: `schema.table.column` (`table.column` on SQLite). */
  readonly column: string;
  /** The segment that keyed it before; `undefined` when nothing was recorded. */
  readonly from: string | undefined;
  /** The segment that keys it now. */
  readonly to: string;
  /** The key `to` was raised above: the last key of a block reserved from `from`, or the largest stored key. */
  readonly above: bigint | undefined;
  /** False when the column was recorded for `to` already (nothing was changed). */
  readonly moved: boolean;
}

/**
 * Moves a key column to another segment (a deploy that renames a segment), so that processes of the new segment
 * may key it: the record is marked as moving (processes of the old segment are refused at their next reservation,
 * those of the new one wait), one block is reserved from the old segment's store, the new segment's store is raised
 * above that block and above the largest key stored in the column, and only then the record names the new segment.
 * Every key the old segment handed out, or still holds in a block reserved before, lies below what the new one
 * hands out. An interrupted move is finished by running it again.
 *
 * @throws HiLoMismatchError when another move of the column is unfinished.
 * @example
 * ```ts
 * await moveColumn(client, { table: 'orders', column: 'id', to: 'orders_v2' });
 * ```
 */
export async function moveColumn(client: SqlClient, options: MoveColumnOptions): Promise<MoveColumnResult> {
  const rules = DIALECTS[client.dialect];
  const to = options.to;
  validateSegment(to);
  const sourceOptions = options.sourceOptions ?? {};
  const registry = columnRegistry(client, { schema: sourceOptions.schema });
  const target = {
    table: options.table,
    column: options.column ?? 'id',
    schema: rules.hasSchemas ? options.schema : undefined,
  };
  const column = await registry.refOf(target);
  if (!(await registry.ensure())) throw sourceErrors.columnRegistryMissing(registry.table);

  // mark the record as moving to `to`: from here on, `from` keeps no block it reserves, `to` reserves none
  let from: string | undefined;
  for (;;) {
    const record = (await registry.read([column])).get(column);
    if (record === undefined) {
      // nothing recorded yet: `to` is recorded as moving from nobody, and raised above the stored keys
      if (await registry.insert(column, to, to)) break;
      continue;
    }
    if (record.segment === to) {
      if (record.movingFrom === undefined) return { column, from: undefined, to, above: undefined, moved: false };
      from = record.movingFrom === to ? undefined : record.movingFrom;
      break;
    }
    if (record.movingFrom !== undefined) {
      throw mismatchErrors.columnMoveUnfinished(column, record.movingFrom, record.segment, to);
    }
    if (await registry.update(column, { segment: to, movingFrom: record.segment }, record)) {
      from = record.segment;
      break;
    }
  }

  const signal = new AbortController().signal;
  const quotedTable = qualifiedName(rules, 'table', target.table, target.schema);
  const quotedColumn = rules.quote(validateIdentifier('column', target.column));
  let above: bigint | undefined;
  try {
    above = await largestKeyIn(client, rules, quotedTable, quotedColumn);
  } catch (error) {
    throw convertDriverError(error, { dialect: rules, action: `reading the largest key of ${column}` });
  }
  if (from !== undefined) {
    const old = await segmentSource(client, from, options.source, { ...sourceOptions, create: false });
    // a store that does not exist (dropped after the rename) handed out nothing still unstored
    if ((await old.status()).some((s) => s.segment === from)) {
      const blocks = await old.reserve(from, { size: 1, signal });
      const last = blocks[blocks.length - 1]?.last;
      if (last !== undefined && (above === undefined || last > above)) above = last;
    }
  }
  if (above !== undefined) {
    const fresh = await segmentSource(client, to, options.source, { ...sourceOptions, create: true });
    await fresh.raiseAbove!(to, above, signal);
  }
  await registry.update(column, { segment: to, movingFrom: undefined }, { segment: to, movingFrom: from ?? to });
  return { column, from, to, above, moved: true };
}
