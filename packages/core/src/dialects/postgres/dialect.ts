import { codeOf, type Dialect } from '../../sql/dialect.js';
import { isStatementPooling } from './pooler.js';
import { postgresReplication } from './replication.js';

/**
 * SQLSTATEs after which the same reservation may succeed: lost connection, shutdown, serialization, deadlock, and
 * 25006 (read-only transaction: a standby, or a primary a failover manager demoted, that the address or host list
 * still leads to until the switch is done).
 */
const RETRYABLE = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01', '55P03', '25006']);

/**
 * postgres.js' own codes for a connection the server or network closed, or that could not be opened in time
 * (`CONNECTION_ENDED` and `CONNECTION_DESTROYED` mean the app closed the instance: not transient).
 */
const POSTGRES_JS_LOST_CONNECTION = new Set(['CONNECTION_CLOSED', 'CONNECT_TIMEOUT']);

/** PostgreSQL (node-postgres and postgres.js): SQLSTATE codes; class 08 is a connection failure. */
export const postgresDialect: Dialect = {
  name: 'postgres',
  displayName: 'PostgreSQL',
  // TypeORM `postgres`, MikroORM PostgreSqlPlatform, Prisma `postgresql`, Drizzle PgDialect, Kysely PostgresAdapter
  reportedAs: ['postgres', 'postgresql', 'pg'],
  urlExample: 'postgres://',
  urlSchemes: ['postgres', 'postgresql'],
  placeholder: (n) => `$${n}`,
  quote: (name) => `"${name.replaceAll('"', '""')}"`,
  asText: (expression) => `${expression}::text`,
  asSigned: (expression) => expression,
  scriptStatement: (statement) => `${statement};\n`,
  literal: (value) => `'${value.replaceAll("'", "''")}'`,
  hasSequences: true,
  sequencesMayBeTables: false,
  hasSchemas: true,
  currentSchema: 'current_schema()',
  namesIgnoreCase: false,
  tableSuffix: '',
  defaultSource: 'sequence',
  replication: postgresReplication,
  isTransient(error) {
    // PgBouncer's statement pooling refuses BEGIN with 08P01: a setting, which no retry cures
    if (isStatementPooling(error)) return false;
    const code = codeOf(error);
    if (code !== undefined && POSTGRES_JS_LOST_CONNECTION.has(code)) return true;
    if (code === undefined || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
    return code.startsWith('08') || RETRYABLE.has(code);
  },
  isMissingObject: (error) => ['42P01', '3F000'].includes(codeOf(error) ?? ''),
  isDuplicate: (error) => ['23505', '42P07', '42710'].includes(codeOf(error) ?? ''),
};
