import { sqliteDialect } from './dialect.js';
import type { StoredKeyColumn } from '../../engine/types.js';

export type { StoredKeyColumn } from '../../engine/types.js';

/** Runs a read on the private database itself and resolves with its rows. */
export type PrivateDatabaseQuery = (
  sql: string,
  params: readonly unknown[],
) => Promise<readonly Record<string, unknown>[]>;

/**
 * The largest key stored in `columns` (0 when they are empty or their tables do not exist yet), compared as
 * integers also where a text column holds the keys as decimal strings.
 */
export async function largestStoredKey(
  query: PrivateDatabaseQuery,
  columns: readonly StoredKeyColumn[],
): Promise<bigint> {
  const quote = sqliteDialect.quote;
  let largest = 0n;
  for (const { table, column } of columns) {
    const exists = await query(`select 1 as found from sqlite_master where type = 'table' and name = ?`, [table]);
    if (exists.length === 0) continue;
    // as integers: a text key column holding decimal keys ('9', '10') would otherwise give '9' (issue 46)
    const rows = await query(
      `select cast(max(cast(${quote(column)} as integer)) as text) as m from ${quote(table)}`,
      [],
    );
    const value = rows[0]?.m;
    if (typeof value === 'string' && BigInt(value) > largest) largest = BigInt(value);
  }
  return largest;
}
