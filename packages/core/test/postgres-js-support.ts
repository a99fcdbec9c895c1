/**
 * A SqlClient on a postgres.js instance of its own (the `postgres` package, through postgresJsClient()), opened
 * the way the suites open one with core's `connect()`: the hi-source conformance suite, the fault suite and
 * the reserve worker run on it to prove hilo on the second PostgreSQL driver apps use.
 */
import postgres from 'postgres';
import { postgresJsClient } from '../src/dialects/postgres/postgres-js.js';
import type { SqlClient } from '../src/sql/sql-client.js';

/** Options as the suites pass them to `connect()`. */
export interface PostgresJsConnectOptions {
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  readonly closeTimeoutMs?: number;
}

export async function connectPostgresJs(url: string, options: PostgresJsConnectOptions = {}): Promise<SqlClient> {
  const sql = postgres(url, {
    max: options.poolSize ?? 5,
    connect_timeout: (options.connectTimeoutMs ?? 10_000) / 1000,
    // `create … if not exists` on an existing object sends a notice, which postgres.js prints by default
    onnotice: () => undefined,
  });
  return postgresJsClient(sql, { ownsSql: true, closeTimeoutSeconds: (options.closeTimeoutMs ?? 1000) / 1000 });
}
