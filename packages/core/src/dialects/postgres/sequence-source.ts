import type { SqlClient } from '../../sql/sql-client.js';
import { postgresDialect } from './dialect.js';
import type { SqlHiSource } from '../../sources/sql-hi-source.js';
import {
  createSequenceSource,
  SEQUENCE_SUFFIX,
  type SequenceSourceOptions,
  type SequenceStatements,
} from '../../sources/sequence-source.js';
import { toBigInt } from '../../sources/table-source.js';
import type { ReserveStatementOptions } from '../../sql/replication.js';
import { postgresReplication } from './replication.js';

/** The columns a reservation statement adds for `options`: the server's identity and the synchronous commit. */
export function extraColumns(options: ReserveStatementOptions | undefined): string {
  return (
    (options?.server === undefined ? '' : `, (select ${postgresReplication.identity}) as srv`) +
    (options?.synchronous === true
      ? `, (select ${postgresReplication.synchronousCommit!}) as sync, ` +
        `(select ${postgresReplication.synchronousStandbyPresent!}) as sby`
      : '')
  );
}

/** Reports the identity and the standby a reservation statement read (see {@link extraColumns}). */
export function reportServer(
  row: { srv?: unknown; sby?: unknown } | undefined,
  options: ReserveStatementOptions | undefined,
): void {
  if (options?.server !== undefined && typeof row?.srv === 'string') options.server(row.srv);
  if (options?.standby !== undefined && typeof row?.sby === 'boolean') options.standby(row.sby);
}

/** PostgreSQL SQL of the sequence source. */
export const postgresSequenceStatements: SequenceStatements = {
  dialect: postgresDialect,
  createSequence: (q, incrementBy, start, minValue) =>
    `create sequence if not exists ${q} as bigint increment by ${incrementBy} minvalue ${minValue} start with ${start}`,
  async readIncrement(client, _q, schema, name) {
    const { rows } = await client.query<{ i: unknown }>(
      'select increment_by::text as i from pg_sequences where schemaname = coalesce($1, current_schema()) and sequencename = $2',
      [schema ?? null, name],
    );
    return rows[0] === undefined ? undefined : toBigInt(rows[0].i, 'INCREMENT BY');
  },
  async nextValues(client, q, count, options) {
    // the quoted name travels as a parameter: `regclass` parses it, nothing is spliced into SQL; the identity and
    // the synchronous commit are uncorrelated subqueries, evaluated once per statement whatever the row count
    const extra = extraColumns(options);
    const { rows } =
      count === 1
        ? await client.query<{ v: unknown; srv?: unknown; sby?: unknown }>(
            `select nextval($1::regclass)::text as v${extra}`,
            [q],
          )
        : await client.query<{ v: unknown; srv?: unknown; sby?: unknown }>(
            `select nextval($1::regclass)::text as v${extra} from generate_series(1, $2::int)`,
            [q, count],
          );
    reportServer(rows[0], options);
    return rows.map((row) => toBigInt(row.v, 'nextval'));
  },
  raiseTo(client, q, incrementBy, target) {
    return client.transaction(async (tx) => {
      // ALTER SEQUENCE blocks nextval and setval until commit, so the value read below cannot move meanwhile
      await tx.query(`alter sequence ${q} increment by ${incrementBy}`);
      const { rows } = await tx.query<{ l: unknown; c: unknown }>(
        `select last_value::text as l, is_called as c from ${q}`,
      );
      const last = toBigInt(rows[0]?.l, 'last_value');
      const next = rows[0]?.c === true ? last + incrementBy : last;
      if (next >= target) return false;
      await tx.query('select setval($1::regclass, $2::bigint, false)', [q, target]);
      return true;
    });
  },
  async alterIncrement(client, q, from, to) {
    await client.transaction(async (tx) => {
      // ALTER SEQUENCE blocks nextval until commit: nobody reserves between the read and the setval
      await tx.query(`alter sequence ${q} increment by ${to}`);
      const { rows } = await tx.query<{ l: unknown; c: unknown }>(
        `select last_value::text as l, is_called as c from ${q}`,
      );
      if (rows[0]?.c !== true || to >= from) return;
      // the last block was [last, last + from): its end becomes last_value, so the next nextval is last + from
      const last = toBigInt(rows[0]?.l, 'last_value');
      await tx.query('select setval($1::regclass, $2::bigint, true)', [q, last + from - to]);
    });
  },
  async readNext(client, q, _schema, _name, incrementBy) {
    // the sequence's own row and its cache size; nothing is called, so nothing moves (the name is a parameter)
    const { rows } = await client.query<{ l: unknown; c: unknown; k: unknown }>(
      `select s.last_value::text as l, s.is_called as c, p.seqcache::text as k from ${q} s, pg_sequence p
        where p.seqrelid = $1::regclass`,
      [q],
    );
    const last = toBigInt(rows[0]?.l, 'last_value');
    if (rows[0]?.c !== true) return last;
    // with CACHE k, a connection fetched the k values up to last_value in one go and handed out the first: it may
    // still hold the other k − 1
    const cache = toBigInt(rows[0]?.k ?? '1', 'cache size');
    return last + incrementBy - (cache > 1n ? cache - 1n : 0n) * incrementBy;
  },
  async list(client, schema) {
    const { rows } = await client.query<{ n: string; s: string; v: unknown; i: unknown }>(
      `select sequencename as n, schemaname as s, last_value::text as v, increment_by::text as i from pg_sequences
        where schemaname = coalesce($1, current_schema()) and sequencename like $2 order by sequencename`,
      [schema ?? null, `%${SEQUENCE_SUFFIX.replaceAll('_', '\\_')}`],
    );
    return rows.map((row) => ({
      name: row.n,
      object: `"${row.s}"."${row.n}"`,
      value: row.v === null || row.v === undefined ? undefined : toBigInt(row.v, 'last_value'),
      increment: toBigInt(row.i, 'increment_by'),
    }));
  },
};

/**
 * PostgreSQL sequences, one per segment: `nextval` with INCREMENT BY = `increment`; several increments in
 * one round trip when a reservation needs more. Creates missing sequences (race-free) and refuses one whose
 * INCREMENT BY does not fit.
 *
 * @example
 * ```ts
 * const source = postgresSequenceSource(pgClient(pool), { increment: 100 });
 * ```
 */
export function postgresSequenceSource(client: SqlClient, options: SequenceSourceOptions): SqlHiSource {
  return createSequenceSource(client, options, postgresSequenceStatements);
}
