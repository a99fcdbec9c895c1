import type { SqlClient, SqlExecutor } from '../../sql/sql-client.js';

/**
 * MariaDB Galera Cluster (issue #47): what hilo reads to tell a Galera node from a server of its own, and what it
 * does differently there.
 *
 * - The server identity is the cluster's: `wsrep_cluster_state_uuid`, which every node of one cluster shares, which a
 *   node keeps across restarts and across a spell outside the Primary Component, and which a cluster bootstrapped
 *   anew (new data, or a new `grastate.dat`) changes. A load balancer moving connections between nodes is thus never
 *   a failover; a new cluster is one.
 * - The sequence source is refused: `nextval` is not certified across nodes (two nodes return the same values,
 *   without an error), while the table source's `UPDATE` of one row is.
 * - A session whose `wsrep_on` is OFF (an init statement of the pool, a `SET SESSION wsrep_on=OFF` left on a pooled
 *   connection) writes on its node only, neither replicated nor certified: the table source's `UPDATE` changes no row
 *   there ({@link REPLICATED_SESSION} in its `WHERE`), and the reservation is refused (`sourceErrors.wsrepOff`).
 * - Reads that must see what another node just committed (the stored-key probes, the hi row read by `hilo check`)
 *   wait until this node has applied every write set the cluster committed before them ({@link CAUSAL_READ}).
 */

/** Clients found to lead to a Galera node (true) or not (false): asked once per client. */
const detected = new WeakMap<SqlClient, Promise<boolean>>();

/** MariaDB's and MySQL's "unknown system variable": a server without wsrep (MySQL, a MariaDB built without it). */
const UNKNOWN_VARIABLE = 1193;

/** MariaDB's ON for a boolean variable, as the drivers return it. */
const isOn = (value: unknown) => value === 1 || value === 1n || value === '1' || value === 'ON' || value === true;

/**
 * Whether `client` leads to a Galera node: `@@global.wsrep_on` is ON, or the node is connected to a cluster
 * (`wsrep_connected`) while `SET GLOBAL wsrep_on=OFF` made its new sessions write on it alone. Read once per client,
 * failures not kept.
 */
export function isGalera(client: SqlClient): Promise<boolean> {
  let found = detected.get(client);
  if (found === undefined) {
    found = (async () => {
      try {
        const { rows } = await client.query<{ w: unknown; c: unknown }>(
          'select @@global.wsrep_on as w, (select variable_value from information_schema.global_status ' +
            "where variable_name = 'WSREP_CONNECTED') as c",
        );
        return isOn(rows[0]?.w) || isOn(rows[0]?.c);
      } catch (error) {
        if ((error as { errno?: unknown } | null)?.errno === UNKNOWN_VARIABLE) return false;
        throw error;
      }
    })();
    detected.set(client, found);
    found.catch(() => detected.delete(client));
  }
  return found;
}

/**
 * The identity of a Galera cluster, as SQL text: `galera cluster <wsrep_cluster_state_uuid>`, read from the status
 * variables (readable without a privilege).
 */
export const GALERA_IDENTITY =
  "concat('galera cluster ', (select variable_value from information_schema.global_status " +
  "where variable_name = 'WSREP_CLUSTER_STATE_UUID'))";

/**
 * A condition true only on a session whose writes Galera replicates and certifies (`@@session.wsrep_on`): the table
 * source's `UPDATE` adds it on a Galera node, so a session that turned it off changes nothing, in the same
 * statement and round trip (the reservation is then refused, `sourceErrors.wsrepOff`).
 */
export const REPLICATED_SESSION = '@@session.wsrep_on = 1';

/** Whether the session of `executor` (one connection: a transaction, or a client inside `session`) has wsrep on. */
export async function sessionReplicates(executor: SqlExecutor): Promise<boolean> {
  const { rows } = await executor.query<{ w: unknown }>('select @@session.wsrep_on as w');
  return isOn(rows[0]?.w);
}

/**
 * Put before a read that must see every write set the cluster committed before it, wherever it was written: MariaDB
 * waits until this node has applied them (`wsrep_sync_wait` bit 1, for this statement only: `SET STATEMENT … FOR`,
 * so the session's own value, which an ORM sharing the pool may rely on, is untouched). Galera only: elsewhere `''`.
 */
export const CAUSAL_READ = 'set statement wsrep_sync_wait = 1 for ';

/** {@link CAUSAL_READ} on a Galera node, `''` elsewhere (MySQL has no `SET STATEMENT`). */
export async function causalReadOn(client: SqlClient): Promise<string> {
  return (await isGalera(client)) ? CAUSAL_READ : '';
}
