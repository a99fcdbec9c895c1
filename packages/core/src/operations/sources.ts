import { HiLoConfigurationError } from '../errors.js';
import { DIALECTS, SEQUENCE_STATEMENTS, TABLE_STATEMENTS } from '../dialects/index.js';
import {
  createSequenceSource,
  type SequenceSourceOptions,
  type SequenceStatements,
} from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { SqlHiSource } from '../sources/sql-hi-source.js';
import { createTableSource, type TableSourceOptions } from '../sources/table-source.js';
import { configurationErrors } from '../error-messages.js';

/** Which kind of SQL hi source: one sequence per segment, or one row per segment in a table. */
export type SqlSourceKind = 'sequence' | 'table';

function checkClient(client: unknown): SqlClient {
  const dialect = (client as { dialect?: unknown } | null)?.dialect;
  if (typeof dialect !== 'string' || !Object.hasOwn(DIALECTS, dialect)) {
    throw HiLoConfigurationError.invalidOption(
      'client',
      'a SqlClient (pgClient(), mysqlClient(), sqliteClient() or connect())',
      client,
    );
  }
  return client as SqlClient;
}

/**
 * A hi source backed by one database sequence per segment: PostgreSQL or MariaDB (MySQL and SQLite have
 * no sequences; use {@link tableSource}).
 *
 * @example
 * ```ts
 * const generator = createHiLoGenerator({ source: sequenceSource(client, { increment: 100 }), blockSize: 100 });
 * ```
 */
export function sequenceSource(client: SqlClient, options: SequenceSourceOptions): SqlHiSource {
  const checked = checkClient(client);
  return createSequenceSource(checked, options, sequenceStatementsOf(checked));
}

/**
 * A hi source backed by one row per segment in a table (default `hilo_segments(segment, next_value)`),
 * on PostgreSQL, MariaDB/MySQL or SQLite. Any block size; unused keys can be returned at close.
 *
 * @example
 * ```ts
 * const generator = createHiLoGenerator({ source: tableSource(client) });
 * ```
 */
export function tableSource(client: SqlClient, options: TableSourceOptions = {}): SqlHiSource {
  const checked = checkClient(client);
  if (checked.singleSession === true) throw configurationErrors.tableSourceSingleSession();
  return createTableSource(checked, options, TABLE_STATEMENTS[checked.dialect]);
}

/** The client's sequence statements; refuses a database without sequences, pointing to the table source. */
export function sequenceStatementsOf(client: SqlClient): SequenceStatements {
  const statements = SEQUENCE_STATEMENTS[client.dialect];
  if (statements === undefined) {
    throw configurationErrors.noSequences(DIALECTS[client.dialect].displayName);
  }
  return statements;
}

/** One statement as migration-script text for `client`'s database (see the dialects' `scriptStatement`). */
export function scriptStatement(client: Pick<SqlClient, 'dialect'>, statement: string): string {
  return DIALECTS[client.dialect].scriptStatement(statement);
}

/** The source kind used when none is given: sequences on PostgreSQL, a table elsewhere. */
export function defaultSourceKind(client: SqlClient): SqlSourceKind {
  return DIALECTS[client.dialect].defaultSource;
}
