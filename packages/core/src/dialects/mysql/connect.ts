import { connect as connectSocket } from 'node:net';
import {
  loadIfInstalled,
  redactUrl,
  refWhileBusy,
  settlesWithin,
  socketTracker,
  withBoundedClose,
  type OpenSettings,
} from '../../sql/connect-support.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { mysqlClient, type MysqlPoolLike } from './client.js';
import { mariadbClient, type MariadbPoolLike } from './mariadb.js';
import { configurationErrors } from '../../error-messages.js';

interface MysqlModule {
  default: {
    createPool(
      config: Record<string, unknown>,
    ): MysqlPoolLike & { pool?: { on?(event: string, listener: () => void): unknown } };
  };
}
/** What mysql2 passes a `stream` factory: the connection settings it parsed from the URL. */
interface MysqlSocketConfig {
  readonly host: string;
  readonly port: number;
  readonly socketPath?: string;
  readonly enableKeepAlive?: boolean;
  readonly keepAliveInitialDelay?: number;
}

/** The `mariadb` connector's `createPool`, given a connection string. */
export type MariadbPoolFactory = (connectionString: string) => MariadbPoolLike;

/**
 * A pool of its own for `mysql://` and `mariadb://` URLs: `mysql2`'s when it is installed, otherwise the
 * `mariadb` connector's (what Prisma's MariaDB adapter runs on), so that such an app needs no second driver.
 */
export async function openMysql(url: string, settings: OpenSettings): Promise<SqlClient> {
  const mysql2 = await loadIfInstalled<MysqlModule>('mysql2/promise');
  if (mysql2.module !== undefined) return openMysql2(mysql2.module, url, settings);
  const mariadb = await loadIfInstalled<{ default: { createPool: MariadbPoolFactory } }>('mariadb');
  if (mariadb.module !== undefined)
    return openMariadb((connectionString) => mariadb.module.default.createPool(connectionString), url, settings);
  throw configurationErrors.noMysqlDriver(redactUrl(url), mysql2.missing);
}

/** A pool of the `mariadb` connector of its own on `url`, with {@link connect}'s pool, timeout and close settings. */
export function openMariadb(createPool: MariadbPoolFactory, url: string, settings: OpenSettings): SqlClient {
  const connectionString = new URL(url.replace(/^mysql:/i, 'mariadb:'));
  connectionString.searchParams.set('connectionLimit', String(settings.poolSize));
  connectionString.searchParams.set('connectTimeout', String(settings.timeoutMs));
  // its pool reports a refused or unreachable server only once this expires
  connectionString.searchParams.set('acquireTimeout', String(settings.timeoutMs));
  const client = mariadbClient(createPool(connectionString.toString()), { ownsPool: true });
  // the connector's pool.end() waits for a statement hung on a stalled link, and its sockets are out of reach
  return { ...client, close: async () => void (await settlesWithin(client.close(), settings.closeTimeoutMs)) };
}

function openMysql2(mysql: MysqlModule, url: string, settings: OpenSettings): SqlClient {
  const sockets = socketTracker();
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
  // mysql2 has no `allowExitOnIdle`: its sockets are unref'd whenever no statement runs (DESIGN rule 12)
  const client = refWhileBusy(mysqlClient(pool, { ownsPool: true }), sockets.open);
  return withBoundedClose(client, sockets.open, settings.closeTimeoutMs);
}
