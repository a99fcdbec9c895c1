import { mysqlCatalog } from '../dialects/mysql/catalog.js';
import { postgresCatalog } from '../dialects/postgres/catalog.js';
import { DIALECTS } from '../dialects/index.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import type { Catalog } from '../sql/catalog.js';
import { configurationErrors } from '../error-messages.js';

/** Each database's catalog, looked up by name; SQLite holds none of the other systems' objects. */
const CATALOGS: Readonly<Record<SqlDialect, Catalog | undefined>> = {
  postgres: postgresCatalog,
  mysql: mysqlCatalog,
  sqlite: undefined,
};

/** The catalog of `client`'s database; the presets check the database before they get here. */
export function catalogOf(client: Pick<SqlClient, 'dialect'>): Catalog {
  const catalog = CATALOGS[client.dialect];
  if (catalog === undefined) {
    throw configurationErrors.interopDatabase(DIALECTS[client.dialect].displayName);
  }
  return catalog;
}
