import type { SqlDialect } from '../sql/sql-client.js';
import type { TenantCatalog } from '../sql/tenant-catalog.js';
import { mysqlTenantCatalog } from './mysql/tenant-catalog.js';
import { postgresTenantCatalog } from './postgres/tenant-catalog.js';

/** Each database's tenant catalog, by name; `undefined` where a database has no schemas (SQLite). */
export const TENANT_CATALOGS: Readonly<Record<SqlDialect, TenantCatalog | undefined>> = {
  postgres: postgresTenantCatalog,
  mysql: mysqlTenantCatalog,
  sqlite: undefined,
};
