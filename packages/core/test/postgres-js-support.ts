/**
 * A SqlClient on a postgres.js instance of its own (the `postgres` package), opened by the same code connect()
 * falls back to without `pg`: the hi-source conformance suite, the fault suite and the reserve worker run on it to
 * prove hilo on the second PostgreSQL driver apps use.
 */
import postgres from 'postgres';
import { openPostgresJs } from '../src/dialects/postgres/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';

/** Options as the suites pass them to `connect()`. */
export interface PostgresJsConnectOptions {
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  readonly closeTimeoutMs?: number;
}

export async function connectPostgresJs(url: string, options: PostgresJsConnectOptions = {}): Promise<SqlClient> {
  return openPostgresJs(postgres, url, {
    poolSize: options.poolSize ?? 5,
    timeoutMs: options.connectTimeoutMs ?? 10_000,
    closeTimeoutMs: options.closeTimeoutMs ?? 1000,
  });
}
