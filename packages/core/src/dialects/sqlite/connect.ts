import { statSync } from 'node:fs';
import { HiLoConfigurationError } from '../../errors.js';
import { load, type OpenSettings } from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { sqliteClient, type SqliteDatabaseLike } from './client.js';
import { configurationErrors, sourceUnavailableErrors } from '../../error-messages.js';

interface BetterSqliteModule {
  default: new (filename: string, options?: Record<string, unknown>) => SqliteDatabaseLike;
}
interface NodeSqliteModule {
  DatabaseSync: new (filename: string, options?: Record<string, unknown>) => SqliteDatabaseLike;
}

/**
 * The file of a `sqlite:PATH` or `file:PATH` URL (Prisma's and libSQL's form for a local file; `file:///abs/path`
 * and a query string such as `?connection_limit=1` too). A folder is refused: it is a PGlite data folder, not a
 * SQLite file.
 */
function sqlitePath(url: string): string {
  const file = url.toLowerCase().startsWith('file:');
  let path = url.slice(url.indexOf(':') + 1);
  if (path.startsWith('//')) path = path.slice(2);
  if (file) path = decodeURIComponent(path.replace(/\?.*$/s, ''));
  if (path === '') throw configurationErrors.sqliteUrlWithoutFile(url);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) {
    throw configurationErrors.sqliteUrlIsFolder(url);
  }
  return path;
}

/**
 * A database connection of its own for `sqlite:PATH` and `file:PATH` URLs: better-sqlite3 when the application has
 * it, else Node's built-in `node:sqlite`. Never `node:sqlite` beside an installed better-sqlite3: two copies of SQLite
 * in one process on one file release each other's POSIX locks, and the application's writes fail with "disk I/O
 * error" (SQLite's "multiple copies of SQLite linked into the same application").
 */
export async function openSqlite(url: string, settings: OpenSettings): Promise<SqlClient> {
  const timeoutMs = settings.timeoutMs;
  const path = sqlitePath(url);
  let db: SqliteDatabaseLike;
  try {
    let better: BetterSqliteModule | undefined;
    try {
      better = await load<BetterSqliteModule>('better-sqlite3', url);
    } catch (error) {
      if (!(error instanceof HiLoConfigurationError)) throw error;
    }
    if (better) {
      db = new better.default(path, { timeout: timeoutMs });
    } else {
      const { DatabaseSync } = await load<NodeSqliteModule>('node:sqlite', url);
      db = new DatabaseSync(path, { timeout: timeoutMs });
    }
  } catch (error) {
    if (error instanceof HiLoConfigurationError) throw error;
    // a missing folder or an unreadable file: the database cannot be reached, like a closed port
    throw sourceUnavailableErrors.sqliteCannotOpen(path, error);
  }
  return sqliteClient(db, { ownsDatabase: true });
}
