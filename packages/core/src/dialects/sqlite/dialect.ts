import { codeOf, type Dialect } from '../../sql/dialect.js';

/** SQLite result codes (primary) after which retrying may succeed: BUSY, LOCKED, CANTOPEN. */
const RETRYABLE = new Set([5, 6, 14]);
const RETRYABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN)/;
/**
 * Cloudflare D1's errors worth retrying, as its "Retry queries" page lists them (a plain `Error` whose message says
 * it): the connection to the database was lost, or the database's object was reset or restarted.
 */
const D1_RETRYABLE = /Network connection lost|storage caused object to be reset|reset because its code was updated/;

/** SQLite (node:sqlite, better-sqlite3, Cloudflare D1): extended result codes, else the message. */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  displayName: 'SQLite',
  // TypeORM `better-sqlite3`/`sqlite`, MikroORM SqlitePlatform/BetterSqlitePlatform, Prisma `sqlite`, Drizzle
  // SQLiteSyncDialect, Kysely SqliteAdapter
  reportedAs: ['sqlite', 'sqlite3', 'bettersqlite', 'bettersqlite3'],
  urlExample: 'sqlite:',
  urlSchemes: ['sqlite', 'file', 'libsql'],
  placeholder: () => '?',
  quote: (name) => `"${name.replaceAll('"', '""')}"`,
  asText: (expression) => `cast(${expression} as char)`,
  asSigned: (expression) => expression,
  scriptStatement: (statement) => `${statement};\n`,
  literal: (value) => `'${value.replaceAll("'", "''")}'`,
  hasSequences: false,
  sequencesMayBeTables: false,
  hasSchemas: false,
  namesIgnoreCase: true,
  tableSuffix: '',
  defaultSource: 'table',
  isTransient(error) {
    if (typeof error.errcode === 'number' && RETRYABLE.has(error.errcode & 0xff)) return true;
    const code = codeOf(error);
    if (code !== undefined && RETRYABLE_CODES.test(code)) return true;
    if (typeof error.message === 'string' && D1_RETRYABLE.test(error.message)) return true;
    return undefined;
  },
  isMissingObject: (error) => typeof error.message === 'string' && /no such table/i.test(error.message),
  isDuplicate: (error) => typeof error.message === 'string' && /already exists|UNIQUE constraint/i.test(error.message),
};
