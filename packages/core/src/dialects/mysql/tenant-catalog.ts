import type { TenantCatalog } from '../../sql/tenant-catalog.js';

/** The user databases of this server with a table (or view) of this exact name. */
const DATABASES_WITH_TABLE =
  `select table_schema as s from information_schema.tables where table_name = ? and table_type <> 'SEQUENCE' ` +
  `and table_schema not in ('mysql', 'information_schema', 'performance_schema', 'sys') order by 1`;

/** MariaDB/MySQL: tenants are databases; an unqualified name resolves to the connection's `database()`. */
export const mysqlTenantCatalog: TenantCatalog = {
  async currentSchema(client) {
    const { rows } = await client.query<{ s: string | null }>('select database() as s');
    return rows[0]?.s ?? '';
  },
  async schemasWithTable(client, table) {
    const { rows } = await client.query<{ s: string }>(DATABASES_WITH_TABLE, [table]);
    return rows.map((row) => row.s);
  },
};
