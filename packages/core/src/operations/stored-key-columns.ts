import type { StoredKeyColumn } from '../engine/types.js';
import type { SqlDialect } from '../sql/sql-client.js';
import { DIALECTS } from '../dialects/index.js';
import { configurationErrors } from '../error-messages.js';

/**
 * Refuses two segments whose keys are stored in the same table and column (issue 46). Each segment counts from its
 * own sequence or hi row, so two of them hand out the same keys, and neither one's verified blocks can tell the
 * other's rows from a store that fell behind once both write there. One column takes keys from one segment; the
 * same segment named twice (single-table inheritance: several entities, one table, one segment) stays allowed.
 * Names compare as the database resolves them: exactly on PostgreSQL (hilo quotes every identifier), ignoring case
 * on MariaDB/MySQL (columns; tables on case-insensitive file systems), SQLite, and when `dialect` is not known yet
 * (an adapter checking its tables before it connects: the stricter reading). A column named once with its
 * schema and once without is compared as written (the schema a connection defaults to is not known here).
 *
 * @throws HiLoConfigurationError naming both segments, the column and the fix.
 * @example
 * ```ts
 * checkOneSegmentPerColumn([{ segment: 'orders', table: 'orders', column: 'id' }], 'postgres');
 * ```
 */
export function checkOneSegmentPerColumn(columns: readonly StoredKeyColumn[], dialect?: SqlDialect): void {
  const ignoreCase = dialect === undefined || DIALECTS[dialect].namesIgnoreCase;
  const fold = ignoreCase ? (name: string) => name.toLowerCase() : (name: string) => name;
  const owner = new Map<string, StoredKeyColumn>();
  for (const c of columns) {
    if (typeof c !== 'object' || c === null) continue;
    const where = JSON.stringify([c.schema === undefined ? null : fold(c.schema), fold(c.table), fold(c.column)]);
    const first = owner.get(where);
    if (first === undefined) {
      owner.set(where, c);
      continue;
    }
    if (first.segment === c.segment) continue;
    const column = `${c.schema === undefined ? '' : `${c.schema}.`}${c.table}.${c.column}`;
    throw configurationErrors.columnSharedBySegments(first.segment, c.segment, column, c.table);
  }
}
