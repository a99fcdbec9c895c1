import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SequenceSourceOptions } from '../sources/sequence-source.js';
import { DEFAULT_SEQUENCE_INCREMENT } from './schema.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { FloorResult, SqlHiSource } from '../sources/sql-hi-source.js';
import { defaultSourceKind, sequenceSource, tableSource, type SqlSourceKind } from './sources.js';
import type { TableSourceOptions } from '../sources/table-source.js';
import { toHiLoError } from './driver-errors.js';
import { DIALECTS, SEQUENCE_STATEMENTS } from '../dialects/index.js';

/** Options of {@link raiseFloor}. */
export interface RaiseFloorOptions {
  /** The segment to raise. */
  readonly segment: string;
  /** The table whose existing keys every future key must exceed, e.g. `orders`. */
  readonly table: string;
  /**
   * Its key column.
   * @default 'id'
   */
  readonly column?: string;
  /** That table's schema (PostgreSQL) or database (MySQL). */
  readonly schema?: string;
  /**
   * The segment's source kind.
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind;
  /**
   * How the source is configured (hi table name, sequence naming, strategy, …). For sequences without
   * `increment`, the existing sequence's INCREMENT BY is used.
   */
  readonly sourceOptions?: Partial<SequenceSourceOptions> & TableSourceOptions;
}

/**
 * Raises a segment so that every future key is above the largest key already in `table.column` (after
 * importing rows, or when adopting hi/lo on an existing table). Never moves a segment backwards, so it is
 * safe to run at any time (Quarkus #31899). Creates the sequence or row when missing.
 *
 * @example
 * ```ts
 * await raiseFloor(client, { segment: 'orders', table: 'orders', column: 'id' });
 * ```
 */
export async function raiseFloor(client: SqlClient, options: RaiseFloorOptions): Promise<FloorResult> {
  const from = {
    table: options.table,
    ...(options.column === undefined ? {} : { column: options.column }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  };
  const source = await segmentSource(client, options.segment, options.source, options.sourceOptions);
  return source.raiseFloor(options.segment, from);
}

/**
 * The source of one segment for maintenance: a table source, or a sequence source whose increment is the
 * existing sequence's INCREMENT BY unless `sourceOptions.increment` says otherwise.
 */
export async function segmentSource(
  client: SqlClient,
  segment: string,
  kind: SqlSourceKind = defaultSourceKind(client),
  sourceOptions: Partial<SequenceSourceOptions> & TableSourceOptions = {},
): Promise<SqlHiSource> {
  if (kind === 'table') return tableSource(client, sourceOptions);
  let increment = sourceOptions.increment;
  if (increment === undefined) {
    const name = validateIdentifier('sequence', (sourceOptions.name ?? ((s: string) => `${s}_hilo_seq`))(segment));
    const quoted = qualifiedName(DIALECTS[client.dialect], 'sequence', name, sourceOptions.schema);
    const statements = SEQUENCE_STATEMENTS[client.dialect];
    try {
      const existing =
        statements === undefined
          ? undefined
          : await statements.readIncrement(client, quoted, sourceOptions.schema, name);
      // a `hilo` sequence advances by 1 and cannot tell its maxLo: that strategy needs `increment`
      increment = existing === undefined ? DEFAULT_SEQUENCE_INCREMENT : Number(existing);
    } catch (error) {
      throw toHiLoError(error, { dialect: client.dialect, action: `reading the increment of sequence ${quoted}` });
    }
  }
  return sequenceSource(client, { ...sourceOptions, increment });
}
