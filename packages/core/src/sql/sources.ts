import { HiLoConfigurationError } from '../errors.js';
import { mariadbSequenceSource } from '../dialects/mysql/sequence-source.js';
import { mysqlTableSource } from '../dialects/mysql/table-source.js';
import { postgresSequenceSource } from '../dialects/postgres/sequence-source.js';
import { postgresTableSource } from '../dialects/postgres/table-source.js';
import { sqliteTableSource } from '../dialects/sqlite/table-source.js';
import type { SequenceSourceOptions } from './sequence-source.js';
import type { SqlClient } from './sql-client.js';
import type { SqlHiSource } from './sql-hi-source.js';
import type { TableSourceOptions } from './table-source.js';
import { DIALECTS } from '../dialects/index.js';

/** Which kind of SQL hi source: one sequence per segment, or one row per segment in a table. */
export type SqlSourceKind = 'sequence' | 'table';

function checkClient(client: unknown): SqlClient {
  const dialect = (client as { dialect?: unknown } | null)?.dialect;
  if (dialect !== 'postgres' && dialect !== 'mysql' && dialect !== 'sqlite') {
    throw HiLoConfigurationError.invalidOption('client', 'a SqlClient (pgClient(), mysqlClient(), sqliteClient() or connect())', client);
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
  if (checked.dialect === 'postgres') return postgresSequenceSource(checked, options);
  if (checked.dialect === 'mysql') return mariadbSequenceSource(checked, options);
  throw new HiLoConfigurationError('SQLite has no sequences: use `tableSource(client)` (source: "table") instead.');
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
  if (checked.dialect === 'postgres') return postgresTableSource(checked, options);
  if (checked.dialect === 'mysql') return mysqlTableSource(checked, options);
  return sqliteTableSource(checked, options);
}

/** The source kind used when none is given: sequences on PostgreSQL, a table elsewhere. */
export function defaultSourceKind(client: SqlClient): SqlSourceKind {
  return DIALECTS[client.dialect].defaultSource;
}
