/**
 * A SqlClient on a pool of the `mariadb` package (MariaDB Connector/Node.js) of its own, opened by the same code
 * connect() falls back to without `mysql2`: the hi-source conformance suite, the fault suite and the reserve
 * worker run on it to prove hilo on the MariaDB driver Prisma's MariaDB adapter uses.
 */
import mariadb from 'mariadb';
import { openMariadb } from '../src/dialects/mysql/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';

/** Options as the suites pass them to `connect()`. */
export interface MariadbConnectOptions {
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  readonly closeTimeoutMs?: number;
}

export async function connectMariadb(url: string, options: MariadbConnectOptions = {}): Promise<SqlClient> {
  return openMariadb((connectionString) => mariadb.createPool(connectionString), url, {
    poolSize: options.poolSize ?? 5,
    // a pool reports a refused or unreachable server only after its acquire timeout, which this also sets
    timeoutMs: options.connectTimeoutMs ?? 3000,
    closeTimeoutMs: options.closeTimeoutMs ?? 1000,
  });
}
