import { HiLoSourceError } from '../../errors.js';
import type { SqlClient } from '../../sql/sql-client.js';

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
 */

/** Clients found to lead to a Galera node (true) or not (false): asked once per client. */
const detected = new WeakMap<SqlClient, Promise<boolean>>();

/** MariaDB's and MySQL's "unknown system variable": a server without wsrep (MySQL, a MariaDB built without it). */
const UNKNOWN_VARIABLE = 1193;

/** Whether `client` leads to a Galera node (`@@global.wsrep_on` is ON); read once per client, failures not kept. */
export function isGalera(client: SqlClient): Promise<boolean> {
  let found = detected.get(client);
  if (found === undefined) {
    found = (async () => {
      try {
        const { rows } = await client.query<{ w: unknown }>('select @@global.wsrep_on as w');
        const value = rows[0]?.w;
        return value === 1 || value === 1n || value === '1' || value === 'ON' || value === true;
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

/** Why the sequence source is refused on a Galera node: `what` names the sequence (or the segment). */
export function galeraSequenceRefusal(what: string): HiLoSourceError {
  return new HiLoSourceError(
    `${what} is on a MariaDB Galera Cluster node (@@wsrep_on is ON), where a sequence's nextval() is not unique ` +
      `across nodes: two nodes return the same values without an error, so keys would be handed out twice.`,
    {
      hint: {
        library:
          "Use the table source (`source: 'table'`, or `tableSource(client)`), whose one-row UPDATE Galera " +
          'certifies across nodes (see "Galera" in the hilo-core README).',
        cli: 'Use the table source (`--source table`), whose one-row UPDATE Galera certifies across nodes.',
      },
    },
  );
}
