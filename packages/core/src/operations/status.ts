import { DIALECTS } from '../dialects/index.js';
import { STORED_KEY_PROBES } from '../dialects/stored-key-probes.js';
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
 * `<segment>_hilo_seq`, with their stored values, the key columns recorded for each (`hilo_columns`) and the
 * largest key those columns' types hold, read from the catalog (`keyMax`). For `hilo status`.
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
  const statuses: SegmentStatus[] = [];
  for (const s of found) {
    const recorded = columns.get(s.segment);
    if (recorded === undefined) {
      statuses.push(s);
      continue;
    }
    const keyMax = await largestKeyOf(client, recorded);
    statuses.push({ ...s, columns: recorded, ...(keyMax === undefined ? {} : { keyMax }) });
  }
  return statuses;
}

/**
 * The largest key every one of `refs` (recorded columns, `schema.table.column` or `table.column`) holds: the smallest
 * maximum of their integer types, as the catalog gives it (an `integer` column's `2147483647`). Undefined when
 * none is an integer column the catalog shows (a text key, a dropped table): the caller then assumes bigint.
 */
async function largestKeyOf(client: SqlClient, refs: readonly string[]): Promise<bigint | undefined> {
  const rules = STORED_KEY_PROBES[client.dialect];
  let smallest: bigint | undefined;
  for (const ref of refs) {
    const parts = ref.split('.');
    const column = parts.pop();
    const table = parts.pop();
    if (column === undefined || table === undefined) continue;
    const schema = parts.length === 0 ? undefined : parts.join('.');
    const facts = await rules.inspect(client, { schema, table, column });
    const max = facts.found ? facts.maxValue : undefined;
    if (max !== undefined && (smallest === undefined || max < smallest)) smallest = max;
  }
  return smallest;
}
