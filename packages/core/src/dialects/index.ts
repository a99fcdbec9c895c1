import type { SequenceStatements } from '../sources/sequence-source.js';
import type { TableStatements } from '../sources/table-source.js';
import type { Dialect } from '../sql/dialect.js';
import type { SqlDialect } from '../sql/sql-client.js';
import { mysqlDialect } from './mysql/dialect.js';
import { mariadbSequenceStatements } from './mysql/sequence-source.js';
import { mysqlTableStatements } from './mysql/table-source.js';
import { postgresDialect } from './postgres/dialect.js';
import { postgresSequenceStatements } from './postgres/sequence-source.js';
import { postgresTableStatements } from './postgres/table-source.js';
import { sqliteDialect } from './sqlite/dialect.js';
import { sqliteTableStatements } from './sqlite/table-source.js';

export type { Dialect, DriverErrorLike } from '../sql/dialect.js';

/** Every database hilo speaks, by the name its `SqlClient` reports. Adding one is adding a folder and a line. */
export const DIALECTS: Readonly<Record<SqlDialect, Dialect>> = {
  postgres: postgresDialect,
  mysql: mysqlDialect,
  sqlite: sqliteDialect,
};

/** Each database's sequence statements, looked up by name; `undefined` where the database has none (SQLite). */
export const SEQUENCE_STATEMENTS: Readonly<Record<SqlDialect, SequenceStatements | undefined>> = {
  postgres: postgresSequenceStatements,
  mysql: mariadbSequenceStatements,
  sqlite: undefined,
};

/** Each database's hi-table statements, looked up by name. */
export const TABLE_STATEMENTS: Readonly<Record<SqlDialect, TableStatements>> = {
  postgres: postgresTableStatements,
  mysql: mysqlTableStatements,
  sqlite: sqliteTableStatements,
};

/**
 * Quotes an identifier (already validated) for the database `dialect` names: `"name"` on PostgreSQL and SQLite,
 * `` `name` `` on MariaDB/MySQL.
 *
 * @example
 * ```ts
 * quoteIdentifier('mysql', 'orders'); // '`orders`'
 * ```
 */
export function quoteIdentifier(dialect: SqlDialect, name: string): string {
  return DIALECTS[dialect].quote(name);
}
