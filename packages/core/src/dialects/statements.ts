import type { SequenceStatements } from '../sources/sequence-source.js';
import type { SqlDialect } from '../sql/sql-client.js';
import type { TableStatements } from '../sources/table-source.js';
import { mariadbSequenceStatements } from './mysql/sequence-source.js';
import { mysqlTableStatements } from './mysql/table-source.js';
import { postgresSequenceStatements } from './postgres/sequence-source.js';
import { postgresTableStatements } from './postgres/table-source.js';
import { sqliteTableStatements } from './sqlite/table-source.js';

/**
 * Each database's sequence statements, looked up by name; `undefined` where the database has none (SQLite).
 * Kept apart from `DIALECTS` because the statements build on the generic sources, which read `DIALECTS`.
 */
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
