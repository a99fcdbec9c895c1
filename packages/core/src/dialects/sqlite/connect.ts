import { HiLoConfigurationError } from '../../errors.js';
import { load, type OpenSettings } from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { sqliteClient, type SqliteDatabaseLike } from './client.js';
import { configurationErrors, sourceUnavailableErrors } from '../../error-messages.js';

interface BetterSqliteModule {
  default: new (
    filename: string,
    options?: Record<string, unknown>,
  ) => SqliteDatabaseLike & { pragma(sql: string): unknown };
}
interface NodeSqliteModule {
  DatabaseSync: new (filename: string, options?: Record<string, unknown>) => SqliteDatabaseLike;
}

function sqlitePath(url: string): string {
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === '') throw configurationErrors.sqliteUrlWithoutFile(url);
  return path;
}

/** A database connection of its own for `sqlite:PATH` URLs: better-sqlite3 when installed, else `node:sqlite`. */
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
      const database = new better.default(path, { timeout: timeoutMs });
      db = database;
    } else {
      // Node.js ≥ 22.5 ships SQLite: the fallback when better-sqlite3 is not installed
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
