import { DIALECTS } from '../dialects/index.js';
import type { SequenceSourceOptions } from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { SegmentStatus } from '../sources/sql-hi-source.js';
import { sequenceSource, tableSource } from './sources.js';
import { columnRegistry } from './column-registry.js';
import type { TableSourceOptions } from '../sources/table-source.js';

/** Options of {@link status}. */
export interface StatusOptions {
  /**
   * The hi table to read.
   * @default 'hilo_segments'
   */
  readonly table?: string;
  /** Schema (PostgreSQL) or database (MySQL) of the hi table and the sequences; default: the connection's. */
  readonly schema?: string;
}

/**
 * Every segment hilo finds in the database: the rows of the hi table and the sequences named
 * `<segment>_hilo_seq`, with their stored values and the key columns recorded for each (`hilo_columns`). For
 * `hilo status`.
 *
 * @example
 * ```ts
 * for (const s of await segmentStatus(client)) console.log(s.segment, s.source, s.value);
 * ```
 */
export async function segmentStatus(client: SqlClient, options: StatusOptions = {}): Promise<SegmentStatus[]> {
  const tableOptions: TableSourceOptions = {
    ...(options.table === undefined ? {} : { table: options.table }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  };
  const found = await tableSource(client, tableOptions).status();
  if (DIALECTS[client.dialect].hasSequences) {
    const sequenceOptions: SequenceSourceOptions = {
      increment: 1,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
    };
    found.push(...(await sequenceSource(client, sequenceOptions).status()));
  }
  // the columns each segment keys, as its first reservation recorded them (DESIGN rule 13)
  const records = await columnRegistry(client, { schema: options.schema }).read();
  const columns = new Map<string, string[]>();
  for (const record of records.values())
    columns.set(record.segment, [...(columns.get(record.segment) ?? []), record.column]);
  return found.map((s) => {
    const recorded = columns.get(s.segment);
    return recorded === undefined ? s : { ...s, columns: recorded };
  });
}
