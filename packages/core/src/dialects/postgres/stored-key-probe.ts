import { escapeRegExp, type StoredKeyProbeRules } from '../../sql/stored-key-probe-rules.js';
import { postgresDialect } from './dialect.js';

/**
 * The column's type category (`S` for text types) and whether a plain B-tree index leads with it in the column's
 * own collation and its type's default operator class (a primary key or unique constraint is such an index). The
 * table is resolved as the probe's statements resolve it: `to_regclass` of the same quoted name, through the
 * connection's `search_path`.
 */
const INSPECT =
  `select t.typcategory::text as category, t.typname::text as type, exists (select 1 from pg_index i ` +
  `join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam ` +
  `where i.indrelid = a.attrelid and i.indkey[0] = a.attnum and i.indpred is null and am.amname = 'btree' ` +
  `and (a.attcollation = 0 or i.indcollation[0] = a.attcollation) ` +
  // the type's default operator class: a text_pattern_ops index does not serve `between`
  `and exists (select 1 from pg_opclass oc where oc.oid = i.indclass[0] and oc.opcdefault)) as indexed ` +
  `from pg_attribute a join pg_type t on t.oid = a.atttypid ` +
  `where a.attrelid = to_regclass($1) and a.attname = $2 and a.attnum > 0 and not a.attisdropped`;

/** The largest value of each integer type (by `pg_type.typname`): a probe's range ends there. */
const INTEGER_MAX: Readonly<Record<string, bigint>> = { int2: 32_767n, int4: 2_147_483_647n, int8: 2n ** 63n - 1n };

/** The user schemas of this database with a table (or view, or partitioned table) of this exact name. */
const SCHEMAS_WITH_TABLE =
  `select n.nspname as s from pg_class c join pg_namespace n on n.oid = c.relnamespace ` +
  `where c.relname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f') ` +
  `and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%' order by 1`;

/** PostgreSQL: regular expressions (`~`, `substring(… from …)`) and `length()`. */
export const postgresStoredKeyProbe: StoredKeyProbeRules = {
  async inspect(client, { schema, table, column }) {
    const q = postgresDialect.quote;
    const name = schema === undefined ? q(table) : `${q(schema)}.${q(table)}`;
    const { rows } = await client.query<{ category: unknown; type: unknown; indexed: unknown }>(INSPECT, [
      name,
      column,
    ]);
    const row = rows[0];
    if (row === undefined) return { found: false, textual: false, indexed: false };
    return {
      found: true,
      textual: row.category === 'S',
      indexed: row.indexed === true || row.indexed === 't',
      maxValue: INTEGER_MAX[String(row.type)],
    };
  },
  async schemasWithTable(client, table) {
    const { rows } = await client.query<{ s: unknown }>(SCHEMAS_WITH_TABLE, [table]);
    return rows.map((row) => String(row.s));
  },
  isDecimal: (expression) => `${expression} ~ '^[1-9][0-9]*$'`,
  length: (expression) => `length(${expression})`,
  // the first parenthesised group is what substring(… from pattern) returns; no match is NULL
  formatNumber: (expression, prefix) =>
    `substring(${expression} from ${postgresDialect.literal(`^${escapeRegExp(prefix)}([1-9][0-9]*)(-[A-Za-z0-9]{1,16})?$`)})`,
};
