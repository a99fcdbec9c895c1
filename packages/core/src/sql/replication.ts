import type { ServerChange } from '../engine/types.js';
import type { SqlClient } from './sql-client.js';

/**
 * What a database can say about the server hilo reserves on and its standbys: PostgreSQL both; MariaDB/MySQL its
 * identity only; SQLite nothing, so failovers there are not noticed (see "Failover" in the hilo-core README).
 */
export interface ReplicationSql {
  /**
   * An SQL expression (text) that names the server a statement runs on, so that two servers which may not hold
   * the same reservations never give the same text: on PostgreSQL the system identifier (another cluster), the
   * WAL timeline (a promoted standby, a point-in-time restore) and the postmaster's start time (a restart, a
   * snapshot restored in place).
   */
  readonly identity: string;
  /**
   * Where the identity depends on how the server is set up: resolves the expression to read on `client`'s server in
   * place of {@link identity} (MariaDB: a Galera node answers with its cluster's identity, issue #47). Asked once per
   * source.
   */
  identityOn?(client: SqlClient): Promise<string>;
  /**
   * Where a read on one server may miss what another server of the same cluster just committed (MariaDB Galera, whose
   * nodes apply each other's write sets after the commit returns): resolves the text to put before a read that must
   * see them (`''` where reads already do). The stored-key probes and the hi row's read (`nextKey`) use it.
   */
  causalRead?(client: SqlClient): Promise<string>;
  /**
   * Whether a server may answer again under an identity hilo already left: MariaDB's `@@server_id` stays the same
   * when a server that was primary before becomes primary again (a failback). PostgreSQL's never does (a
   * promotion starts a timeline, a restart changes the start time), so there an answer from a server hilo left
   * comes from a connection to the old primary that is still open, and is discarded.
   */
  readonly identityMayReturn?: boolean;
  /**
   * Whether an identity a server check read names a server in recovery (a standby, or a primary a failover manager
   * demoted and restarted as one): it neither takes reservations nor says which server the keys in memory belong
   * with, so hilo waits for another answer instead of taking it for a failover (issue #47).
   */
  inRecovery?(identity: string): boolean;
  /** What changed between two identities this database reported (see `HiSource.serverChange`). */
  change?(from: string, to: string): ServerChange;
  /**
   * An SQL expression, evaluated once in a reservation's statement, that makes the statement's commit wait until
   * a synchronous standby has it (and has every earlier WAL record, such as a sequence's logged-ahead values).
   */
  readonly synchronousCommit?: string;
  /**
   * An SQL expression (boolean), evaluated in a reservation's statement next to {@link synchronousCommit}: whether a
   * synchronous standby is there to confirm the commit. A leader that lost its standby (Patroni's `synchronous_mode`
   * without `synchronous_mode_strict` then empties `synchronous_standby_names`) commits without waiting; the
   * reservation's keys are then discarded (a gap) instead of handed out (issue #47).
   */
  readonly synchronousStandbyPresent?: string;
  /**
   * Why the server cannot confirm reservations with a synchronous standby now, or `undefined` when it can.
   * `retryable`: a wait can cure it (a standby reconnecting, a failover manager about to list one). `confirmedBefore`:
   * this source saw a synchronous standby on the database before (a setting that lists none now was emptied by a
   * failover manager while the standby is away), for the problem to say.
   */
  synchronousStandbyProblem?(
    client: SqlClient,
    confirmedBefore: boolean,
  ): Promise<{ problem: string; retryable: boolean } | undefined>;
  /**
   * How long (ms) the oldest commit on the server has been waiting for a synchronous standby, or `undefined` when
   * none waits. A reservation abandoned at its timeout drops its connection, but the server's backend goes on waiting
   * for the standby: this tells the next reservation that it would wait behind it.
   */
  oldestStandbyWaitMs?(client: SqlClient): Promise<number | undefined>;
}

/** What a source asks of a reservation statement beyond the reservation itself. */
export interface ReserveStatementOptions {
  /** Read the server's identity ({@link ReplicationSql.identity}) in the same statement and report it here. */
  readonly server?: ((identity: string) => void) | undefined;
  /** With `server`: the identity expression to read, when the database's depends on the server (`identityOn`). */
  readonly identity?: string | undefined;
  /** Make the statement's commit wait for a synchronous standby ({@link ReplicationSql.synchronousCommit}). */
  readonly synchronous?: boolean | undefined;
  /**
   * With `synchronous`: told whether a synchronous standby was there when the statement ran
   * ({@link ReplicationSql.synchronousStandbyPresent}).
   */
  readonly standby?: ((present: boolean) => void) | undefined;
}
