import { Socket } from 'node:net';
import { load, socketTracker, withBoundedClose, type OpenSettings } from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { pgClient, type PgPoolLike } from './client.js';

interface PgModule {
  default: { Pool: new (config: Record<string, unknown>) => PgPoolLike & { on(event: 'error', listener: () => void): unknown } };
}

/** A `pg` pool of its own for `postgres://` and `postgresql://` URLs. */
export async function openPostgres(url: string, settings: OpenSettings): Promise<SqlClient> {
  const sockets = socketTracker();
  const pg = await load<PgModule>('pg', url);
  const pool = new pg.default.Pool({
    connectionString: url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.timeoutMs,
    // pg's own socket (it connects it, and upgrades it to TLS when asked), tracked for a stuck close
    stream: () => sockets.track(new Socket()),
  });
  // a killed idle connection is reported here; the pool drops it and the next query reconnects
  pool.on('error', () => undefined);
  return withBoundedClose(pgClient(pool, { ownsPool: true }), sockets.open, settings.closeTimeoutMs);
}
