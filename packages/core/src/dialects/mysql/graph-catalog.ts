import { catalogFlag, oneColumnReferences, type GraphCatalog } from '../../sql/bulk.js';

/**
 * A table's columns (with whether each has a default, `auto_increment` or a generation expression; MariaDB reports a
 * nullable column's missing default as the text `NULL`) and its one-column foreign keys, from `information_schema`.
 */
export const mysqlGraphCatalog: GraphCatalog = async (executor, table) => {
  const where = 'table_schema = coalesce(?, database()) and table_name = ?';
  const params = [table.schema ?? null, table.table];
  const { rows } = await executor.query<{ n: string; s: string; d: unknown }>(
    `select column_name as n, table_schema as s,
            (extra <> '' or (column_default is not null and column_default <> 'NULL')) as d
       from information_schema.columns where ${where} order by ordinal_position`,
    params,
  );
  if (rows.length === 0) return undefined;
  const { rows: keys } = await executor.query<{ c: string; t: string; s: string; k: string }>(
    `select column_name as c, referenced_table_name as t, referenced_table_schema as s, constraint_name as k
       from information_schema.key_column_usage where ${where} and referenced_table_name is not null`,
    params,
  );
  return {
    schema: rows[0]!.s,
    columns: rows.map((row) => ({ name: row.n, defaulted: catalogFlag(row.d) })),
    references: oneColumnReferences(keys),
  };
};
