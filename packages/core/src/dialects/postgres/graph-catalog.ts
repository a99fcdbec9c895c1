import { catalogFlag, oneColumnReferences, type GraphCatalog } from '../../sql/bulk.js';
import { postgresDialect } from './dialect.js';

/**
 * A table's columns (with whether each has a default, an identity or a generation expression) and its one-column
 * foreign keys (with whether each is DEFERRABLE), from `pg_attribute` and `pg_constraint`.
 */
export const postgresGraphCatalog: GraphCatalog = async (executor, table) => {
  const quote = postgresDialect.quote;
  const name = table.schema === undefined ? quote(table.table) : `${quote(table.schema)}.${quote(table.table)}`;
  const { rows } = await executor.query<{ n: string; s: string; d: unknown }>(
    `select a.attname as n, ns.nspname as s,
            (a.atthasdef or a.attidentity <> '' or a.attgenerated <> '') as d
       from pg_attribute a
       join pg_class c on c.oid = a.attrelid
       join pg_namespace ns on ns.oid = c.relnamespace
      where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped
      order by a.attnum`,
    [name],
  );
  if (rows.length === 0) return undefined;
  const { rows: keys } = await executor.query<{ c: string; t: string; s: string; k: string; d: unknown }>(
    `select a.attname as c, t.relname as t, ns.nspname as s, k.conname as k, k.condeferrable as d
       from pg_constraint k
       join pg_attribute a on a.attrelid = k.conrelid and a.attnum = any (k.conkey)
       join pg_class t on t.oid = k.confrelid
       join pg_namespace ns on ns.oid = t.relnamespace
      where k.conrelid = to_regclass($1) and k.contype = 'f'`,
    [name],
  );
  return {
    schema: rows[0]!.s,
    columns: rows.map((row) => ({ name: row.n, defaulted: catalogFlag(row.d) })),
    references: oneColumnReferences(keys),
  };
};
