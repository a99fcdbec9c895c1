import type { SqlDialect } from '../sql/sql-client.js';
import type { Dialect } from '../sql/dialect.js';
import { mysqlDialect } from './mysql/dialect.js';
import { postgresDialect } from './postgres/dialect.js';
import { sqliteDialect } from './sqlite/dialect.js';

export type { Dialect, DriverErrorLike } from '../sql/dialect.js';

/** Every database hilo speaks, by the name its `SqlClient` reports. Adding one is adding a folder and a line. */
export const DIALECTS: Readonly<Record<SqlDialect, Dialect>> = {
  postgres: postgresDialect,
  mysql: mysqlDialect,
  sqlite: sqliteDialect,
};
