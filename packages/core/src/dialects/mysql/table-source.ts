import type { ReserveStatementOptions } from '../../sql/replication.js';
import type { SqlClient, SqlExecutor } from '../../sql/sql-client.js';
import { mysqlDialect } from './dialect.js';
import { isGalera, REPLICATED_SESSION, sessionReplicates } from './galera.js';
import type { SqlHiSource } from '../../sources/sql-hi-source.js';
import {
  createTableSource,
  toBigInt,
  type TableSourceOptions,
  type TableStatements,
} from '../../sources/table-source.js';
import { sourceErrors, sourceUnavailableErrors } from '../../error-messages.js';

/** Clients whose results did not carry the value `LAST_INSERT_ID(expr)` set: they take the two-statement path. */
const withoutInsertId = new WeakSet<SqlClient>();

/** The new value from an UPDATE's OK packet, when the driver reported it exactly. */
function reportedValue(insertId: number | string | bigint | undefined): bigint | undefined {
  if (typeof insertId === 'bigint') return insertId > 0n ? insertId : undefined;
  if (typeof insertId === 'number')
    return Number.isSafeInteger(insertId) && insertId > 0 ? BigInt(insertId) : undefined;
  if (typeof insertId === 'string') return /^[1-9][0-9]*$/.test(insertId) ? BigInt(insertId) : undefined;
  return undefined;
}

/**
 * What an UPDATE that changed no row means, asked on its connection: the row is missing (`undefined`), or on a Galera
 * node the session has `wsrep_on` OFF (the reservation is refused).
 */
type Unchanged = (executor: SqlExecutor) => Promise<undefined>;

/** Without Galera an unchanged row is a missing one. */
const missingRow: Unchanged = () => Promise.resolve(undefined);

/** On Galera: refused when the UPDATE's session has `wsrep_on` OFF (its `WHERE` excluded the row), else missing. */
function galeraUnchanged(table: string): Unchanged {
  return async (executor) => {
    if (!(await sessionReplicates(executor))) throw sourceErrors.wsrepOff(`MariaDB table ${table}`);
    return undefined;
  };
}

/**
 * A reservation that also reports the server it ran on (issue #40): the UPDATE, then the server's identity and
 * `LAST_INSERT_ID()` read on the same connection, so the identity is that of the server that made the reservation.
 * `@@server_id` cannot go into the UPDATE itself: with statement-based binary logging a replica would evaluate it
 * again and find its own. Inside a session (one pinned connection, two round trips) `LAST_INSERT_ID()` must equal
 * the OK packet's value, which proves the SELECT ran on the UPDATE's connection (a pinned connection that broke in
 * between sends the SELECT to another one); otherwise, and for clients without sessions or without the OK packet's
 * value, in a transaction of its own (four round trips).
 */
async function advanceOnServer(
  client: SqlClient,
  update: string,
  params: readonly unknown[],
  report: (identity: string) => void,
  identity: string,
  unchanged: Unchanged,
): Promise<bigint | undefined> {
  const read = `select cast(last_insert_id() as char) as v, ${identity} as srv`;
  const identify = async (executor: SqlExecutor, expected: bigint | undefined): Promise<bigint> => {
    const { rows } = await executor.query<{ v: unknown; srv: unknown }>(read);
    const value = toBigInt(rows[0]?.v, 'LAST_INSERT_ID()');
    if (expected !== undefined && value !== expected) {
      // the SELECT did not run where the UPDATE did: the block's server is unknown, so the block is a gap
      throw sourceUnavailableErrors.connectionChanged(expected);
    }
    if (typeof rows[0]?.srv === 'string') report(rows[0].srv);
    return value;
  };
  const inTransaction = () =>
    client.transaction(async (tx) => {
      const { affectedRows } = await tx.query(update, params);
      return affectedRows === 0 ? unchanged(tx) : identify(tx, undefined);
    });
  if (client.session === undefined || withoutInsertId.has(client)) return inTransaction();
  return client.session(async () => {
    const { affectedRows, insertId } = await client.query(update, params);
    if (affectedRows === 0) return unchanged(client);
    const reported = reportedValue(insertId);
    if (reported !== undefined) return identify(client, reported);
    // the driver did not report the value: this block is a gap, and this client reserves in transactions from now
    withoutInsertId.add(client);
    return inTransaction();
  });
}

/**
 * MariaDB/MySQL SQL of the table source. MariaDB 10.x has no `update … returning`, so the new value is
 * remembered with `LAST_INSERT_ID(expr)`. The OK packet of that UPDATE carries it (mysql2's `insertId`, a
 * string past 2^53), so a reservation is one autocommit statement, one round trip. A client that does not
 * report it reads `LAST_INSERT_ID()` back on the same connection in a transaction of its own (four round
 * trips); the block whose value went unreported is a gap, never reused. When the generator asks which server a
 * reservation ran on, the identity is read right after the UPDATE on its connection (see {@link advanceOnServer}).
 */
export const mysqlTableStatements: TableStatements = {
  dialect: mysqlDialect,
  createTable: (t, s, v) =>
    `create table if not exists ${t} (${s} varchar(255) not null primary key, ${v} bigint not null) engine=InnoDB`,
  insertRow: (t, s, v) =>
    `insert into ${t} (${s}, ${v}) values (?, cast(? as signed)) on duplicate key update ${s} = ${s}`,
  // on a Galera node a session with wsrep_on OFF writes nothing: a row inserted on that node alone would make it
  // fail the same row replicated from another node later, a row moved there alone would not be certified (its
  // reservations are refused, see advance)
  async writesOn(client) {
    if (!(await isGalera(client))) return mysqlTableStatements;
    return {
      insertRow: (t, s, v) =>
        `insert into ${t} (${s}, ${v}) select ?, cast(? as signed) from dual where ${REPLICATED_SESSION} ` +
        `on duplicate key update ${s} = ${s}`,
      compareAndSet: (t, s, v) => `${mysqlTableStatements.compareAndSet(t, s, v)} and ${REPLICATED_SESSION}`,
      raiseTo: (t, s, v) => `${mysqlTableStatements.raiseTo(t, s, v)} and ${REPLICATED_SESSION}`,
    };
  },
  async advance(client, t, s, v, key, amount, options?: ReserveStatementOptions) {
    // on a Galera node the UPDATE changes no row on a session whose writes would stay on this node (wsrep_on OFF):
    // it costs no round trip, and an unchanged row is then told apart on the same connection
    const galera = await isGalera(client);
    const where = galera ? `${s} = ? and ${REPLICATED_SESSION}` : `${s} = ?`;
    const update = `update ${t} set ${v} = last_insert_id(${v} + cast(? as signed)) where ${where}`;
    const unchanged = galera ? galeraUnchanged(t) : missingRow;
    if (options?.server !== undefined) {
      const identity = options.identity ?? mysqlDialect.replication!.identity;
      return advanceOnServer(client, update, [amount, key], options.server, identity, unchanged);
    }
    // on Galera, an unchanged row is asked about on the UPDATE's own connection
    const pinned =
      galera && client.session !== undefined ? client.session.bind(client) : <T>(work: () => Promise<T>) => work();
    return pinned(async () => {
      if (!withoutInsertId.has(client)) {
        const { affectedRows, insertId } = await client.query(update, [amount, key]);
        if (affectedRows === 0) return unchanged(client);
        const value = reportedValue(insertId);
        if (value !== undefined) return value;
        withoutInsertId.add(client);
      }
      return client.transaction(async (tx) => {
        const { affectedRows } = await tx.query(update, [amount, key]);
        if (affectedRows === 0) return unchanged(tx);
        const { rows } = await tx.query<{ v: unknown }>('select cast(last_insert_id() as char) as v');
        return toBigInt(rows[0]?.v, 'LAST_INSERT_ID()');
      });
    });
  },
  compareAndSet: (t, s, v) => `update ${t} set ${v} = cast(? as signed) where ${s} = ? and ${v} = cast(? as signed)`,
  raiseTo: (t, s, v) => `update ${t} set ${v} = cast(? as signed) where ${s} = ? and ${v} < cast(? as signed)`,
  readAll: (t, s, v) => `select ${s} as s, cast(${v} as char) as v from ${t}`,
};

/**
 * A MariaDB/MySQL hi table: one row per segment (default `hilo_segments(segment, next_value)`), advanced
 * atomically with `LAST_INSERT_ID(expr)`. Any block size.
 *
 * @example
 * ```ts
 * const source = mysqlTableSource(mysqlClient(pool));
 * ```
 */
export function mysqlTableSource(client: SqlClient, options: TableSourceOptions = {}): SqlHiSource {
  return createTableSource(client, options, mysqlTableStatements);
}
