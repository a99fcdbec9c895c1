import type { SqlClient } from './sql-client.js';

/**
 * What hilo reads from a database's catalog to keep a hi store and its checks on the same tenants (DESIGN rule 10):
 * which schemas (PostgreSQL) or databases (MariaDB/MySQL) hold a table of a name, and which one the connection is
 * in. Each database with schemas exports one (`dialects/<db>/tenant-catalog.ts`); SQLite has none.
 */
export interface TenantCatalog {
  /** The schema (database) an unqualified name resolves to on this connection: where a store without `schema` lives. */
  currentSchema(client: SqlClient): Promise<string>;
  /** Every user schema (database) holding a table (or view) of exactly this name, the connection's own included. */
  schemasWithTable(client: SqlClient, table: string): Promise<readonly string[]>;
}
