import { checkInteger } from '../checks.js';
import { Socket, connect as connectSocket } from 'node:net';
import { HiLoConfigurationError, HiLoSourceUnavailableError } from '../errors.js';
import { mysqlClient, type MysqlPoolLike } from '../dialects/mysql/client.js';
import { pgClient, type PgPoolLike } from '../dialects/postgres/client.js';
import type { SqlClient } from './sql-client.js';
import { sqliteClient, type SqliteDatabaseLike } from '../dialects/sqlite/client.js';

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

/** Resolves true when `work` settles within `ms`, false otherwise. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sockets a pool opened and has not closed yet, so that a stuck close can destroy them. */
function socketTracker(): { readonly open: Set<Socket>; track(socket: Socket): Socket } {
  const open = new Set<Socket>();
  return {
    open,
    track(socket) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      return socket;
    },
  };
}

/** `client` whose `close()` gives up waiting after `ms` and destroys the sockets its pool still has open. */
function withBoundedClose(client: SqlClient, sockets: Set<Socket>, ms: number): SqlClient {
  return {
    ...client,
    async close() {
      const closing = client.close();
      if (await settlesWithin(closing, ms)) return;
      for (const socket of sockets) socket.destroy();
      await settlesWithin(closing, 1000);
    },
  };
}

/** `url` with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

async function load<T>(specifier: string, url: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || code === 'ERR_UNKNOWN_BUILTIN_MODULE') {
      const name = specifier.split('/')[0];
      throw new HiLoConfigurationError(
        `connect("${redactUrl(url)}") needs the \`${name}\` package, which is not installed: run \`npm install ${name}\`.`,
        { cause: error },
      );
    }
    throw error;
  }
}

interface PgModule {
  default: { Pool: new (config: Record<string, unknown>) => PgPoolLike & { on(event: 'error', listener: () => void): unknown } };
}
interface MysqlModule {
  default: { createPool(config: Record<string, unknown>): MysqlPoolLike & { pool?: { on?(event: string, listener: () => void): unknown } } };
}
/** What mysql2 passes a `stream` factory: the connection settings it parsed from the URL. */
interface MysqlSocketConfig {
  readonly host: string;
  readonly port: number;
  readonly socketPath?: string;
  readonly enableKeepAlive?: boolean;
  readonly keepAliveInitialDelay?: number;
}
interface BetterSqliteModule {
  default: new (filename: string, options?: Record<string, unknown>) => SqliteDatabaseLike & { pragma(sql: string): unknown };
}
interface NodeSqliteModule {
  DatabaseSync: new (filename: string, options?: Record<string, unknown>) => SqliteDatabaseLike;
}

function sqlitePath(url: string): string {
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === '') throw new HiLoConfigurationError(`Expected a file after "sqlite:" (e.g. "sqlite:app.db"), got "${url}".`);
  return path;
}

async function openSqlite(url: string, timeoutMs: number): Promise<SqlClient> {
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
    throw new HiLoSourceUnavailableError(
      `Cannot open the SQLite database "${path}": ${(error as Error).message}. Check that its folder exists and is writable.`,
      { cause: error },
    );
  }
  return sqliteClient(db, { ownsDatabase: true });
}

/**
 * Opens a connection pool of its own from a URL and wraps it as a {@link SqlClient}; `close()` ends it.
 * Accepts `postgres://`, `postgresql://`, `mysql://`, `mariadb://` and `sqlite:PATH`. The driver (`pg`,
 * `mysql2`, `better-sqlite3` or the built-in `node:sqlite`) is loaded only when its scheme is used.
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
  const sockets = socketTracker();
  const scheme = /^([a-z0-9+]+):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case 'postgres':
    case 'postgresql': {
      const pg = await load<PgModule>('pg', url);
      const pool = new pg.default.Pool({
        connectionString: url,
        max: poolSize,
        connectionTimeoutMillis: timeoutMs,
        // pg's own socket (it connects it, and upgrades it to TLS when asked), tracked for a stuck close
        stream: () => sockets.track(new Socket()),
      });
      // a killed idle connection is reported here; the pool drops it and the next query reconnects
      pool.on('error', () => undefined);
      return withBoundedClose(pgClient(pool, { ownsPool: true }), sockets.open, closeTimeoutMs);
    }
    case 'mysql':
    case 'mariadb': {
      const mysql = await load<MysqlModule>('mysql2/promise', url);
      const pool = mysql.default.createPool({
        uri: url.replace(/^mariadb:/i, 'mysql:'),
        connectionLimit: poolSize,
        connectTimeout: timeoutMs,
        supportBigNumbers: true,
        bigNumberStrings: true,
        // the socket mysql2 would open (it upgrades it to TLS when asked), tracked for a stuck close
        stream: ({ config }: { config: MysqlSocketConfig }) => {
          const socket = config.socketPath ? connectSocket(config.socketPath) : connectSocket(config.port, config.host);
          if (config.enableKeepAlive) socket.setKeepAlive(true, config.keepAliveInitialDelay ?? 0);
          return sockets.track(socket);
        },
      });
      return withBoundedClose(mysqlClient(pool, { ownsPool: true }), sockets.open, closeTimeoutMs);
    }
    case 'sqlite':
      return openSqlite(url, timeoutMs);
    default:
      throw new HiLoConfigurationError(
        `Expected a URL starting with postgres://, postgresql://, mysql://, mariadb:// or sqlite:, got "${redactUrl(url)}".`,
      );
  }
}
