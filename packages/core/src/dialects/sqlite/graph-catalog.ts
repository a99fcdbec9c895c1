import { catalogFlag, oneColumnReferences, type GraphCatalog } from '../../sql/bulk.js';

/**
 * A table's columns (with whether each has a default or is generated) from `pragma_table_xinfo`, and its one-column
 * foreign keys from `pragma_foreign_key_list` (SQLite's catalog does not say which are DEFERRABLE).
 */
export const sqliteGraphCatalog: GraphCatalog = async (executor, table) => {
  const { rows } = await executor.query<{ n: string; d: unknown }>(
    'select name as n, (dflt_value is not null or hidden <> 0) as d from pragma_table_xinfo(?)',
    [table.table],
  );
  if (rows.length === 0) return undefined;
  const { rows: keys } = await executor.query<{ c: string; t: string; k: unknown }>(
    'select "from" as c, "table" as t, id as k from pragma_foreign_key_list(?)',
    [table.table],
  );
  return {
    schema: undefined,
    columns: rows.map((row) => ({ name: row.n, defaulted: catalogFlag(row.d) })),
    references: oneColumnReferences(keys.map((key) => ({ ...key, s: null }))),
  };
};
