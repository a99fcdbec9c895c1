/**
 * A SqlClient on a pool of the `mariadb` package (MariaDB Connector/Node.js, through mariadbClient()) of its own,
 * opened the way the suites open one with core's `connect()`: the hi-source conformance suite, the fault suite
 * and the reserve worker run on it to prove hilo on the MariaDB driver Prisma's MariaDB adapter uses.
 */
import mariadb from 'mariadb';
import { mariadbClient } from '../src/dialects/mysql/mariadb.js';
import type { SqlClient } from '../src/sql/sql-client.js';

/** Options as the suites pass them to `connect()`. */
export interface MariadbConnectOptions {
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  readonly closeTimeoutMs?: number;
}

export async function connectMariadb(url: string, options: MariadbConnectOptions = {}): Promise<SqlClient> {
  const parsed = new URL(url);
  const pool = mariadb.createPool({
    host: parsed.hostname,
    port: Number(parsed.port || 3306),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: parsed.pathname.slice(1),
    connectionLimit: options.poolSize ?? 5,
    connectTimeout: options.connectTimeoutMs ?? 3000,
    // a pool reports a refused or unreachable server only after acquireTimeout (10 s by default)
    acquireTimeout: options.connectTimeoutMs ?? 3000,
  });
  return mariadbClient(pool, { ownsPool: true });
}
