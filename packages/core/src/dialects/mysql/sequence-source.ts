import { isMissingObject } from '../../sql/driver-errors.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { mysqlDialect } from './dialect.js';
import { isGalera } from './galera.js';
import type { SqlHiSource } from '../../sources/sql-hi-source.js';
import {
  createSequenceSource,
  SEQUENCE_SUFFIX,
  type SequenceSourceOptions,
  type SequenceStatements,
} from '../../sources/sequence-source.js';
import { toBigInt } from '../../sources/table-source.js';
import { sourceErrors } from '../../error-messages.js';

/** MariaDB (10.3+) SQL of the sequence source. MySQL has no sequences: use a table source there. */
export const mariadbSequenceStatements: SequenceStatements = {
  dialect: mysqlDialect,
  // Galera does not certify nextval across nodes: two nodes return the same values (issue #47)
  refusal: async (client, sequence) =>
    (await isGalera(client)) ? sourceErrors.galeraSequence(`Sequence ${sequence}`) : undefined,
  // nocache: every value is persisted, so status() reads the true position and a restart leaves no gap
  createSequence: (q, incrementBy, start, minValue) =>
    `create sequence if not exists ${q} increment by ${incrementBy} minvalue ${minValue} start with ${start} nocache`,
  async readIncrement(client, q) {
    try {
      const { rows } = await client.query<{ i: unknown }>(`select cast(increment as char) as i from ${q}`);
      return rows[0] === undefined ? undefined : toBigInt(rows[0].i, 'INCREMENT BY');
    } catch (error) {
      if (isMissingObject(error, mysqlDialect)) return undefined;
      throw error;
    }
  },
  async nextValues(client, q, count, options) {
    // seq_1_to_N is MariaDB's built-in Sequence engine table; N is a validated integer. The server's identity
    // (issue #40) is read in the same statement.
    const identity = options?.identity ?? mysqlDialect.replication!.identity;
    const server = options?.server === undefined ? '' : `, (select ${identity}) as srv`;
    const sql =
      count === 1
        ? `select cast(nextval(${q}) as char) as v${server}`
        : `select cast(nextval(${q}) as char) as v${server} from seq_1_to_${Math.trunc(count)}`;
    const { rows } = await client.query<{ v: unknown; srv?: unknown }>(sql);
    const found = rows[0]?.srv;
    if (options?.server !== undefined && typeof found === 'string') options.server(found);
    return rows.map((row) => toBigInt(row.v, 'nextval'));
  },
  async raiseTo(client, q, _incrementBy, target) {
    // MariaDB's setval never moves a sequence backwards: it returns NULL and changes nothing
    const { rows } = await client.query<{ r: unknown }>(`select cast(setval(${q}, ${BigInt(target)}, 0) as char) as r`);
    return rows[0]?.r !== null && rows[0]?.r !== undefined;
  },
  async alterIncrement(client, q, _from, to) {
    // nocache: next_not_cached_value is the next value nextval returns, the end of every block handed out so far
    const { rows } = await client.query<{ v: unknown }>(`select cast(next_not_cached_value as char) as v from ${q}`);
    const next = toBigInt(rows[0]?.v, 'next_not_cached_value');
    await client.query(`alter sequence ${q} increment by ${to}`);
    // never moves backwards; makes sure ALTER did not bring the next value below where it was
    await client.query(`select setval(${q}, ${next}, 0)`);
  },
  async readNext(client, q, _schema, _name, incrementBy) {
    // reading the sequence's table never advances it; nocache (what hilo creates): the next value is exact
    const { rows } = await client.query<{ v: unknown; k: unknown }>(
      `select cast(next_not_cached_value as char) as v, cast(cache_size as char) as k from ${q}`,
    );
    const next = toBigInt(rows[0]?.v, 'next_not_cached_value');
    // a cached sequence fetched k values below it in one go and handed out the first: it may still hold k − 1
    const cache = toBigInt(rows[0]?.k ?? '0', 'cache_size');
    return cache > 1n ? next - (cache - 1n) * incrementBy : next;
  },
  async list(client, schema) {
    const { rows } = await client.query<{ s: string; n: string }>(
      `select table_schema as s, table_name as n from information_schema.tables
        where table_schema = coalesce(?, database()) and table_type = 'SEQUENCE' and table_name like ? order by table_name`,
      [schema ?? null, `%${SEQUENCE_SUFFIX.replaceAll('_', '\\_')}`],
    );
    const found = [];
    for (const row of rows) {
      const object = `\`${row.s.replaceAll('`', '``')}\`.\`${row.n.replaceAll('`', '``')}\``;
      const { rows: values } = await client.query<{ v: unknown; i: unknown }>(
        `select cast(next_not_cached_value as char) as v, cast(increment as char) as i from ${object}`,
      );
      found.push({
        name: row.n,
        object,
        value: values[0] === undefined ? undefined : toBigInt(values[0].v, 'next_not_cached_value'),
        increment: toBigInt(values[0]?.i, 'increment'),
      });
    }
    return found;
  },
};

/**
 * MariaDB sequences, one per segment (`create sequence … increment by`, `nextval`); several increments in
 * one round trip. Creates missing sequences and refuses one whose INCREMENT BY does not fit.
 *
 * @example
 * ```ts
 * const source = mariadbSequenceSource(mysqlClient(pool), { increment: 100 });
 * ```
 */
export function mariadbSequenceSource(client: SqlClient, options: SequenceSourceOptions): SqlHiSource {
  return createSequenceSource(client, options, mariadbSequenceStatements);
}
