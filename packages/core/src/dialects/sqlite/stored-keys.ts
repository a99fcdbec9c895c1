import { sqliteDialect } from './dialect.js';
import type { StoredKeyColumn } from '../../engine/types.js';

export type { StoredKeyColumn } from '../../engine/types.js';

/** Runs a read on the private database itself and resolves with its rows. */
export type PrivateDatabaseQuery = (
  sql: string,
  params: readonly unknown[],
) => Promise<readonly Record<string, unknown>[]>;

/** The largest key stored in `columns` (0 when they are empty or their tables do not exist yet). */
export async function largestStoredKey(
  query: PrivateDatabaseQuery,
  columns: readonly StoredKeyColumn[],
): Promise<bigint> {
  const quote = sqliteDialect.quote;
  let largest = 0n;
  for (const { table, column } of columns) {
    const exists = await query(`select 1 as found from sqlite_master where type = 'table' and name = ?`, [table]);
    if (exists.length === 0) continue;
    const rows = await query(`select cast(max(${quote(column)}) as text) as m from ${quote(table)}`, []);
    const value = rows[0]?.m;
    if (typeof value === 'string' && BigInt(value) > largest) largest = BigInt(value);
  }
  return largest;
}
