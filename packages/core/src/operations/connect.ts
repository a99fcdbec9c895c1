import { checkInteger } from '../engine/checks.js';
import { HiLoConfigurationError } from '../errors.js';
import { openMysql } from '../dialects/mysql/connect.js';
import { openPostgres } from '../dialects/postgres/connect.js';
import { openSqlite } from '../dialects/sqlite/connect.js';
import { redactUrl, type OpenSettings } from '../sql/connect-support.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import { configurationErrors } from '../error-messages.js';
import { DIALECTS } from '../dialects/index.js';

export { redactUrl } from '../sql/connect-support.js';

/** Options of {@link connect}. */
export interface ConnectOptions {
  /**
   * Most connections the pool opens (PostgreSQL, MariaDB/MySQL).
   * @default 10
   */
  readonly poolSize?: number;
  /**
   * How long to wait for a connection (and, on SQLite, for a locked database) before failing with
   * `HiLoSourceUnavailableError`.
   * @default 5000
   */
  readonly connectTimeoutMs?: number;
  /**
   * How long `close()` waits for the pool to end (PostgreSQL, MariaDB/MySQL). A statement stuck on a link
   * that drops packets would hold its connection for ever; after this time the pool's sockets are
   * destroyed, so closing never hangs and leaves nothing open.
   * @default 5000
   */
  readonly closeTimeoutMs?: number;
}

/** Each URL scheme's opener, from its database's folder. */
const OPENERS: Readonly<Record<string, (url: string, settings: OpenSettings) => Promise<SqlClient>>> = {
  postgres: openPostgres,
  postgresql: openPostgres,
  mysql: openMysql,
  mariadb: openMysql,
  sqlite: openSqlite,
  file: openSqlite,
  libsql: (url) => Promise.reject(configurationErrors.libsqlServerUrl(redactUrl(url))),
};

/** The database a URL's scheme names (`file:` and `libsql:` are SQLite's, as in Prisma and libSQL), if any. */
export function dialectOfUrl(url: string): SqlDialect | undefined {
  const scheme = /^([a-z0-9+]+):/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return Object.values(DIALECTS).find((dialect) => dialect.urlSchemes.includes(scheme))?.name;
}

/**
 * Opens a connection pool of its own from a URL and wraps it as a {@link SqlClient}; `close()` ends it.
 * Accepts `postgres://`, `postgresql://`, `mysql://`, `mariadb://`, and `sqlite:PATH` or `file:PATH` (Prisma's and
 * libSQL's form) for a SQLite file. The driver (`pg` or postgres.js, `mysql2` or the mariadb connector, the built-in
 * `node:sqlite`) is loaded only when its scheme is used; a `libsql://` server is refused. A PostgreSQL
 * URL may list several hosts as libpq does (`postgres://u@db1,db2/shop?target_session_attrs=read-write`): the pool
 * uses the first host that accepts writes and looks again when that server stops accepting them (a failover).
 *
 * @example
 * ```ts
 * const client = await connect('postgres://app@localhost:5432/shop');
 * const source = sequenceSource(client, { increment: 100 });
 * ```
 */
export async function connect(url: string, options: ConnectOptions = {}): Promise<SqlClient> {
  if (typeof url !== 'string') throw HiLoConfigurationError.invalidOption('url', 'a database URL string', url);
  const poolSize = options.poolSize ?? 10;
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 5000;
  checkInteger('poolSize', poolSize);
  checkInteger('connectTimeoutMs', timeoutMs);
  checkInteger('closeTimeoutMs', closeTimeoutMs, { min: 0 });
  const scheme = /^([a-z0-9+]+):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || !Object.hasOwn(OPENERS, scheme)) {
    throw configurationErrors.unknownUrlScheme(redactUrl(url));
  }
  return OPENERS[scheme]!(url, { poolSize, timeoutMs, closeTimeoutMs });
}
