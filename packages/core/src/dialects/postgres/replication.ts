import type { ReplicationSql } from '../../sql/replication.js';

/** What the identity says in place of a timeline while the server is in recovery. */
const IN_RECOVERY = 'none (in recovery)';

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
/** The parts of a PostgreSQL identity (see {@link postgresReplication}), or `undefined` for another text. */
function identityParts(identity: string): { system: string; timeline: string; started: string } | undefined {
  const parts = /^system (\S+) timeline (.+) started (\S+)$/.exec(identity);
  return parts === null ? undefined : { system: parts[1]!, timeline: parts[2]!, started: parts[3]! };
}

export const postgresReplication: ReplicationSql = {
  identity:
    `'system ' || (select system_identifier from pg_control_system())::text || ' timeline ' || ` +
    `case when pg_is_in_recovery() then '${IN_RECOVERY}' ` +
    `else (('x' || left(pg_walfile_name(pg_current_wal_lsn()), 8))::bit(32)::int)::text end || ` +
    `' started ' || extract(epoch from pg_postmaster_start_time())::text`,
  // `on` (or the server's `remote_apply`) waits for the standby to flush the commit record; a promotion replays
  // everything flushed. nextval writes WAL (and takes a transaction ID) only every 32 values: the transactional
  // logical message makes every reservation's commit write WAL and wait, which also covers the sequence's
  // logged-ahead record written by an earlier statement whose wait was abandoned.
  synchronousCommit:
    `set_config('synchronous_commit', case when current_setting('synchronous_commit') = 'remote_apply' ` +
    `then 'remote_apply' else 'on' end, true) || pg_logical_emit_message(true, 'hilo', 'reservation')::text`,
  inRecovery: (identity) => identity.includes(IN_RECOVERY),
  // the same system on the same timeline, started again: a restart (or a snapshot of it restored in place), not a
  // promotion, which always starts a timeline
  change(from, to) {
    const [a, b] = [identityParts(from), identityParts(to)];
    if (a === undefined || b === undefined || a.system !== b.system) return 'other-server';
    return a.timeline === b.timeline ? 'restart' : 'promotion';
  },
  // the same facts as synchronousStandbyProblem, in the reservation's own statement: the setting as this session
  // sees it (the commit waits only when it lists a standby) and a walsender that reports a synchronous standby
  // (`sync_state` is hidden without pg_read_all_stats: then the setting alone has to do)
  synchronousStandbyPresent:
    `current_setting('synchronous_standby_names') <> '' and exists (select 1 from pg_stat_replication ` +
    `where sync_state in ('sync', 'quorum') or sync_state is null)`,
  async oldestStandbyWaitMs(client) {
    // a backend whose commit waits for the synchronous standby shows the wait event SyncRep, also after its client
    // dropped the connection (the wait ends only when the standby confirms, or the backend is cancelled)
    const { rows } = await client.query<{ ms: number | string | null }>(
      `select (extract(epoch from max(clock_timestamp() - query_start)) * 1000)::float8 as ms
         from pg_stat_activity where wait_event = 'SyncRep'`,
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? undefined : Math.max(0, Math.round(Number(ms)));
  },
  async synchronousStandbyProblem(client, confirmedBefore) {
    const { rows } = await client.query<{
      names: string;
      sync: number;
      hidden: number;
      streaming: number;
      slots: number;
      recovery: boolean;
    }>(
      `select current_setting('synchronous_standby_names') as names, pg_is_in_recovery() as recovery,
              (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum'))::int as sync,
              (select count(*) from pg_stat_replication where sync_state is null)::int as hidden,
              (select count(*) from pg_stat_replication)::int as streaming,
              (select count(*) from pg_replication_slots where slot_type = 'physical')::int as slots`,
    );
    const row = rows[0];
    if (row === undefined) return { problem: 'the server did not say whether it has one.', retryable: true };
    if (row.recovery) return { problem: 'the server is a standby in recovery (not promoted yet).', retryable: true };
    if (row.names.trim() === '') {
      // a wait, not a refusal: a failover manager empties it while its standby is away (Patroni's synchronous_mode
      // without synchronous_mode_strict, also on a leader promoted moments ago) and lists the standby once it streams.
      // Nothing on the server tells that apart from one set up without synchronous replication (a new leader has
      // neither a standby streaming nor, yet, a slot for one), so callers wait within their timeout and then get
      // this error, which says what was seen.
      const sign =
        row.streaming > 0
          ? 'a standby streams asynchronously'
          : row.slots > 0
            ? 'a replication slot waits for a standby'
            : confirmedBefore
              ? 'it listed one before'
              : 'no standby streams';
      return {
        problem:
          `the server lists none: its \`synchronous_standby_names\` is empty (${sign}). A failover manager such as ` +
          'Patroni lists a standby once one streams (`synchronous_mode_strict` keeps one listed); otherwise the server ' +
          'is set up without synchronous replication.',
        retryable: true,
      };
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
