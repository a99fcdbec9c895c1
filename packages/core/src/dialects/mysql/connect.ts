import { connect as connectSocket } from 'node:net';
import { load, socketTracker, withBoundedClose, type OpenSettings } from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { mysqlClient, type MysqlPoolLike } from './client.js';

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

/** A `mysql2` pool of its own for `mysql://` and `mariadb://` URLs. */
export async function openMysql(url: string, settings: OpenSettings): Promise<SqlClient> {
  const sockets = socketTracker();
  const mysql = await load<MysqlModule>('mysql2/promise', url);
  const pool = mysql.default.createPool({
    uri: url.replace(/^mariadb:/i, 'mysql:'),
    connectionLimit: settings.poolSize,
    connectTimeout: settings.timeoutMs,
    supportBigNumbers: true,
    bigNumberStrings: true,
    // the socket mysql2 would open (it upgrades it to TLS when asked), tracked for a stuck close
    stream: ({ config }: { config: MysqlSocketConfig }) => {
      const socket = config.socketPath ? connectSocket(config.socketPath) : connectSocket(config.port, config.host);
      if (config.enableKeepAlive) socket.setKeepAlive(true, config.keepAliveInitialDelay ?? 0);
      return sockets.track(socket);
    },
  });
  return withBoundedClose(mysqlClient(pool, { ownsPool: true }), sockets.open, settings.closeTimeoutMs);
}
