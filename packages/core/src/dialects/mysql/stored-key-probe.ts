import { escapeRegExp, type StoredKeyProbeRules } from '../../sql/stored-key-probe-rules.js';
import { mysqlDialect } from './dialect.js';

const TEXT_TYPES = new Set(['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext']);

/** The largest value of each integer type, signed and unsigned: a probe's range ends there. */
const INTEGER_MAX: Readonly<Record<string, readonly [signed: bigint, unsigned: bigint]>> = {
  tinyint: [127n, 255n],
  smallint: [32_767n, 65_535n],
  mediumint: [8_388_607n, 16_777_215n],
  int: [2_147_483_647n, 4_294_967_295n],
  integer: [2_147_483_647n, 4_294_967_295n],
  bigint: [2n ** 63n - 1n, 2n ** 64n - 1n],
};

/** The largest value a column of `dataType` (`int`) and `columnType` (`int(10) unsigned`) holds, if an integer. */
function integerMax(dataType: unknown, columnType: unknown): bigint | undefined {
  const max = INTEGER_MAX[String(dataType).toLowerCase()];
  if (max === undefined) return undefined;
  return /\bunsigned\b/i.test(String(columnType)) ? max[1] : max[0];
}

/**
 * The column's data type and whether a B-tree index leads with it (a primary key counts), for the table the
 * probe reads: in the named database, else the connection's.
 */
const INSPECT =
  `select c.data_type as type, c.column_type as full_type, exists (select 1 from information_schema.statistics s ` +
  `where s.table_schema = c.table_schema and s.table_name = c.table_name and s.column_name = c.column_name ` +
  `and s.seq_in_index = 1 and s.index_type = 'BTREE') as indexed ` +
  `from information_schema.columns c ` +
  `where c.table_schema = coalesce(?, database()) and c.table_name = ? and c.column_name = ?`;

/** MariaDB/MySQL: `regexp`, `regexp_replace()` and `char_length()`. */
export const mysqlStoredKeyProbe: StoredKeyProbeRules = {
  async inspect(client, { schema, table, column }) {
    const { rows } = await client.query<{ type: unknown; full_type: unknown; indexed: unknown }>(INSPECT, [
      schema ?? null,
      table,
      column,
    ]);
    const row = rows[0];
    if (row === undefined) return { found: false, textual: false, indexed: false };
    return {
      found: true,
      textual: TEXT_TYPES.has(String(row.type).toLowerCase()),
      indexed: String(row.indexed) === '1' || row.indexed === true,
      maxValue: integerMax(row.type, row.full_type),
    };
  },
  // a binary comparison: a case-insensitive collation must not let the pattern match more than digits
  isDecimal: (expression) => `${expression} regexp binary '^[1-9][0-9]*$'`,
  length: (expression) => `char_length(${expression})`,
  formatNumber(expression, prefix) {
    // no `?` in the statement's text: drivers that put parameters in on the client (mysql2 before 3.x's
    // prepared statements, `mysql`) would take one inside a literal for a placeholder
    const escaped = escapeRegExp(prefix).replaceAll('\\?', '\\x3f');
    const pattern = mysqlDialect.literal(`^${escaped}([1-9][0-9]*)(-[A-Za-z0-9]{1,16}){0,1}$`);
    return (
      `case when ${expression} regexp binary ${pattern} ` +
      `then regexp_replace(${expression}, ${pattern}, ${mysqlDialect.literal('\\1')}) end`
    );
  },
};
