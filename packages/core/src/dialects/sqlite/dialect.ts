import { codeOf, type Dialect } from '../../sql/dialect.js';

/** SQLite result codes (primary) after which retrying may succeed: BUSY, LOCKED, CANTOPEN. */
const RETRYABLE = new Set([5, 6, 14]);
const RETRYABLE_CODES = /^SQLITE_(BUSY|LOCKED|CANTOPEN)/;

/** SQLite (node:sqlite, better-sqlite3): extended result codes, else the message. */
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
    return undefined;
  },
  isMissingObject: (error) => typeof error.message === 'string' && /no such table/i.test(error.message),
  isDuplicate: (error) => typeof error.message === 'string' && /already exists|UNIQUE constraint/i.test(error.message),
};
