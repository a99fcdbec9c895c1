import type { TenantCatalog } from '../../sql/tenant-catalog.js';

/** The user schemas of this database with a table (or view, or partitioned table) of this exact name. */
const SCHEMAS_WITH_TABLE =
  `select n.nspname as s from pg_class c join pg_namespace n on n.oid = c.relnamespace ` +
  `where c.relname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f') ` +
  `and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%' order by 1`;

/** PostgreSQL: tenants are schemas; an unqualified name resolves to `current_schema()` (the search_path's first). */
export const postgresTenantCatalog: TenantCatalog = {
  async currentSchema(client) {
    const { rows } = await client.query<{ s: string | null }>('select current_schema() as s');
    return rows[0]?.s ?? 'public';
  },
  async schemasWithTable(client, table) {
    const { rows } = await client.query<{ s: string }>(SCHEMAS_WITH_TABLE, [table]);
    return rows.map((row) => row.s);
  },
};
