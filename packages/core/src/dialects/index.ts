import { describe } from '../errors.js';
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
import { configurationErrors } from '../error-messages.js';
import type { GraphCatalog } from '../sql/bulk.js';
import { mysqlGraphCatalog } from './mysql/graph-catalog.js';
import { postgresGraphCatalog } from './postgres/graph-catalog.js';
import { sqliteGraphCatalog } from './sqlite/graph-catalog.js';

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

/** Each database's catalog reader for graph loads (columns and foreign keys), looked up by name. */
export const GRAPH_CATALOGS: Readonly<Record<SqlDialect, GraphCatalog>> = {
  postgres: postgresGraphCatalog,
  mysql: mysqlGraphCatalog,
  sqlite: sqliteGraphCatalog,
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

/** What an ORM reports, compared by letters and digits alone, without a trailing role word: `PostgreSqlPlatform` → `postgresql`. */
function reportedName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/(?:sync|async)?(?:platform|driver|adapter|dialect)$/, '');
}

/**
 * The database an ORM says it is on, as hilo-core's dialect name: TypeORM's `options.type`, MikroORM's platform
 * class name, Prisma's provider, Drizzle's dialect, Kysely's adapter, matched against each dialect's `reportedAs`.
 * Pass several candidates (a class and its base classes) to take the first that matches. An unsupported value
 * is a `HiLoConfigurationError` naming it; `unsupported` words that message for the adapter asking.
 *
 * @example
 * ```ts
 * dialectOf(dataSource.options.type); // 'postgres' for TypeORM's 'postgres', 'mysql' for 'mariadb'
 * dialectOf('PostgreSqlPlatform'); // 'postgres'
 * dialectOf('mssql', (got) => `hilo-typeorm cannot reserve on ${got}; pass a client.`); // throws with that message
 * ```
 */
export function dialectOf(reported: unknown, unsupported?: (got: string) => string): SqlDialect {
  const candidates: readonly unknown[] = Array.isArray(reported) ? reported : [reported];
  for (const candidate of candidates) {
    const name = reportedName(candidate);
    if (name === undefined || name === '') continue;
    const found = Object.values(DIALECTS).find((dialect) => dialect.reportedAs.includes(name));
    if (found !== undefined) return found.name;
  }
  const first = candidates[0];
  const got = typeof first === 'string' ? first : describe(first);
  throw configurationErrors.unsupportedDatabase(
    first,
    Object.values(DIALECTS).map((d) => d.displayName),
    unsupported?.(got),
  );
}
