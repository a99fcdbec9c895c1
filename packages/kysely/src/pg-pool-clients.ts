// The one place hilo-kysely reads past a public API. Kysely keeps the driver's connection of a transaction in
// private class fields (`#client`), so a graph load inside `db.transaction()` on PostgreSQL finds that connection in
// the `pg` Pool the app gave PostgresDialect: among pg-pool's connections (its `_clients` list, pg-pool 2 and 3), the
// one whose backend process id (pg's `processID`) is the transaction's `pg_backend_pid()`. Checked at each use: a pool
// of another shape, or no connection or more than one with that id, is refused with the option and the fix; never
// guessed. packages/kysely/test/graph-load.postgres.test.ts fails when pg-pool changes this shape.
import type { PgGraphConnectionLike } from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/** The connection of `pool` whose server process is `pid`: the connection a Kysely transaction runs on. */
export function pgClientOfBackend(pool: object, pid: number): PgGraphConnectionLike {
  const clients = (pool as { _clients?: unknown })._clients;
  if (!Array.isArray(clients)) throw configurationErrors.graphPoolShape();
  const found = clients.filter(
    (client: { processID?: unknown; query?: unknown } | null) =>
      client?.processID === pid && typeof client.query === 'function',
  );
  if (found.length !== 1) throw configurationErrors.graphTransactionConnection(pid);
  return found[0] as PgGraphConnectionLike;
}
