import type { StoredKeyProbeRules } from '../../sql/stored-key-probe-rules.js';
import { sqliteDialect } from './dialect.js';

/** Whether a declared type gives text affinity (SQLite's rules: INT first, then CHAR, CLOB or TEXT). */
function textAffinity(declared: string): boolean {
  const type = declared.toUpperCase();
  return !type.includes('INT') && /CHAR|CLOB|TEXT/.test(type);
}

/** SQLite: `glob`, `substr()`, `instr()` and `length()` (it has no regular expressions). */
export const sqliteStoredKeyProbe: StoredKeyProbeRules = {
  async inspect(client, { table, column }) {
    const { rows: columns } = await client.query<{ name: unknown; type: unknown; pk: unknown }>(
      `select name, type, pk from pragma_table_info(?)`,
      [table],
    );
    const found = columns.find((c) => c.name === column);
    if (found === undefined) return { found: false, textual: false, indexed: false };
    const type = String(found.type);
    // INTEGER PRIMARY KEY is the rowid itself
    const rowid =
      Number(found.pk) === 1 &&
      type.toUpperCase() === 'INTEGER' &&
      columns.filter((c) => Number(c.pk) > 0).length === 1;
    const { rows } = await client.query(
      `select 1 as found from pragma_index_list(?) l, pragma_index_info(l.name) i ` +
        `where i.seqno = 0 and i.name = ? and l.partial = 0`,
      [table, column],
    );
    return { found: true, textual: textAffinity(type), indexed: rowid || rows.length > 0 };
  },
  isDecimal: (expression) => `(${expression} glob '[1-9]*' and ${expression} not glob '*[^0-9]*')`,
  length: (expression) => `length(${expression})`,
  formatNumber(expression, prefix) {
    const rest = `substr(${expression}, ${prefix.length + 1})`;
    const dash = `instr(${rest}, '-')`;
    const digits = `case when ${dash} > 0 then substr(${rest}, 1, ${dash} - 1) else ${rest} end`;
    const tag = `substr(${rest}, ${dash} + 1)`;
    return (
      `case when substr(${expression}, 1, ${prefix.length}) = ${sqliteDialect.literal(prefix)} ` +
      `and (${digits}) glob '[1-9]*' and (${digits}) not glob '*[^0-9]*' ` +
      `and (${dash} = 0 or (length(${tag}) between 1 and 16 and ${tag} not glob '*[^A-Za-z0-9]*')) ` +
      `then ${digits} end`
    );
  },
};
