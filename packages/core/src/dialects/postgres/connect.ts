import { Socket } from 'node:net';
import {
  loadIfInstalled,
  redactUrl,
  socketTracker,
  withBoundedClose,
  type OpenSettings,
} from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { pgClient, type PgPoolLike } from './client.js';
import { multiHostPool, parsePostgresHosts } from './multi-host.js';
import { postgresJsClient, type PostgresJsSqlLike } from './postgres-js.js';
import { configurationErrors } from '../../error-messages.js';

interface PgModule {
  default: {
    Pool: new (config: Record<string, unknown>) => PgPoolLike & { on(event: 'error', listener: () => void): unknown };
  };
}

/** postgres.js' default export: `postgres(url, options)`. */
export type PostgresJsFactory = (url: string, options: Record<string, unknown>) => PostgresJsSqlLike;

/**
 * A pool of its own for `postgres://` and `postgresql://` URLs: `pg`'s when it is installed, otherwise
 * postgres.js' (the `postgres` package), so that an app with only postgres.js needs no second driver.
 */
export async function openPostgres(url: string, settings: OpenSettings): Promise<SqlClient> {
  const pg = await loadIfInstalled<PgModule>('pg');
  if (pg.module !== undefined) return openPg(pg.module, url, settings);
  const postgresJs = await loadIfInstalled<{ default: PostgresJsFactory }>('postgres');
  if (postgresJs.module !== undefined) return openPostgresJs(postgresJs.module.default, url, settings);
  throw configurationErrors.noPostgresDriver(redactUrl(url), pg.missing);
}

/** A postgres.js instance of its own on `url`, with {@link connect}'s pool, timeout and close settings. */
export function openPostgresJs(postgres: PostgresJsFactory, url: string, settings: OpenSettings): SqlClient {
  // postgres.js reads a libpq host list and target_session_attrs itself; this refuses what hilo cannot use
  parsePostgresHosts(url);
  const sql = postgres(url, {
    max: settings.poolSize,
    connect_timeout: settings.timeoutMs / 1000,
    // `create … if not exists` on an existing object sends a notice, which postgres.js would print
    onnotice: () => undefined,
  });
  return postgresJsClient(sql, { ownsSql: true, closeTimeoutSeconds: settings.closeTimeoutMs / 1000 });
}

function openPg(pg: PgModule, url: string, settings: OpenSettings): SqlClient {
  const sockets = socketTracker();
  const open = (connectionString: string) => {
    const pool = new pg.default.Pool({
      connectionString,
      max: settings.poolSize,
      connectionTimeoutMillis: settings.timeoutMs,
      // an idle connection (and its idle timer) never keeps the process alive: a script that ends its ORM's pool
      // but not hilo still exits (DESIGN rule 12); a connection in use is ref'd again while it works
      allowExitOnIdle: true,
      // pg's own socket (it connects it, and upgrades it to TLS when asked), tracked for a stuck close
      stream: () => sockets.track(new Socket()),
    });
    // a killed idle connection is reported here; the pool drops it and the next query reconnects
    pool.on('error', () => undefined);
    return pool;
  };
  // `pg` reads one host; a libpq host list (`h1,h2?target_session_attrs=read-write`) is chosen from here
  const hosts = parsePostgresHosts(url);
  const pool = hosts === undefined ? open(url) : multiHostPool(hosts, open);
  return withBoundedClose(pgClient(pool, { ownsPool: true }), sockets.open, settings.closeTimeoutMs);
}
