import type { SqlClient } from '../../sql/sql-client.js';
import { postgresDialect } from './dialect.js';
import { extraColumns, reportServer } from './sequence-source.js';
import type { SqlHiSource } from '../../sources/sql-hi-source.js';
import {
  createTableSource,
  toBigInt,
  type TableSourceOptions,
  type TableStatements,
} from '../../sources/table-source.js';

/** PostgreSQL SQL of the table source: `update … returning` in autocommit is atomic and one round trip. */
export const postgresTableStatements: TableStatements = {
  dialect: postgresDialect,
  createTable: (t, s, v) => `create table if not exists ${t} (${s} varchar(255) primary key, ${v} bigint not null)`,
  insertRow: (t, s, v) => `insert into ${t} (${s}, ${v}) values ($1, $2::bigint) on conflict (${s}) do nothing`,
  async advance(client, t, s, v, key, amount, options) {
    const { rows } = await client.query<{ v: unknown; srv?: unknown; sby?: unknown }>(
      `update ${t} set ${v} = ${v} + $1::bigint where ${s} = $2 returning ${v}::text as v${extraColumns(options)}`,
      [amount, key],
    );
    reportServer(rows[0], options);
    return rows[0] === undefined ? undefined : toBigInt(rows[0].v, 'the stored value');
  },
  compareAndSet: (t, s, v) => `update ${t} set ${v} = $1::bigint where ${s} = $2 and ${v} = $3::bigint`,
  raiseTo: (t, s, v) => `update ${t} set ${v} = $1::bigint where ${s} = $2 and ${v} < $3::bigint`,
  readAll: (t, s, v) => `select ${s} as s, ${v}::text as v from ${t}`,
};

/**
 * A PostgreSQL hi table: one row per segment (default `hilo_segments(segment, next_value)`), advanced with
 * one atomic `update … returning`. Any block size.
 *
 * @example
 * ```ts
 * const source = postgresTableSource(pgClient(pool), { table: 'hilo_segments' });
 * ```
 */
export function postgresTableSource(client: SqlClient, options: TableSourceOptions = {}): SqlHiSource {
  return createTableSource(client, options, postgresTableStatements);
}
