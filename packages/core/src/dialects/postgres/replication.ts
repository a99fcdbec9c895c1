import type { ReplicationSql } from '../../sql/replication.js';

/**
 * PostgreSQL's server identity and synchronous commit for reservations (issue #40).
 *
 * The identity joins three facts, because each alone misses a way a server can lack reservations it confirmed:
 * the system identifier is copied to every physical standby (it only tells another cluster apart); the WAL
 * timeline changes the moment a standby is promoted (and after a point-in-time restore), where
 * `pg_control_checkpoint()` would wait for a checkpoint; the postmaster's start time changes with a restart,
 * which is how a server restored from a snapshot in place, or one that lost commits made with
 * `synchronous_commit = off`, comes back. A restart of the same server is thus taken as another server too:
 * hilo discards its blocks (a gap, never a duplicate). The start time is read as seconds since 1970, so the
 * session's time zone and date style cannot change the text.
 */
export const postgresReplication: ReplicationSql = {
  identity:
    `'system ' || (select system_identifier from pg_control_system())::text || ' timeline ' || ` +
    `case when pg_is_in_recovery() then 'none (in recovery)' ` +
    `else (('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::int)::text end || ` +
    `' started ' || extract(epoch from pg_postmaster_start_time())::text`,
  // `on` (or the server's `remote_apply`) waits for the standby to flush the commit record; a promotion replays
  // everything flushed. nextval writes WAL (and takes a transaction ID) only every 32 values: the transactional
  // logical message makes every reservation's commit write WAL and wait, which also covers the sequence's
  // logged-ahead record written by an earlier statement whose wait was abandoned.
  synchronousCommit:
    `set_config('synchronous_commit', case when current_setting('synchronous_commit') = 'remote_apply' ` +
    `then 'remote_apply' else 'on' end, true) || pg_logical_emit_message(true, 'hilo', 'reservation')::text`,
  async synchronousStandbyProblem(client) {
    const { rows } = await client.query<{ names: string; sync: number; hidden: number; recovery: boolean }>(
      `select current_setting('synchronous_standby_names') as names, pg_is_in_recovery() as recovery,
              (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum'))::int as sync,
              (select count(*) from pg_stat_replication where sync_state is null)::int as hidden`,
    );
    const row = rows[0];
    if (row === undefined) return { problem: 'the server did not say whether it has one.', retryable: true };
    if (row.recovery) return { problem: 'the server is a standby in recovery.', retryable: true };
    if (row.names.trim() === '') {
      return { problem: 'the server lists none: its `synchronous_standby_names` is empty.', retryable: false };
    }
    // without pg_read_all_stats, sync_state is hidden: then the setting alone has to do
    if (row.sync === 0 && row.hidden === 0) {
      return {
        problem:
          `none of the standbys in \`synchronous_standby_names\` (${row.names}) is connected and synchronous ` +
          `(\`pg_stat_replication\`), so every reservation would wait for one.`,
        retryable: true,
      };
    }
    return undefined;
  },
};
