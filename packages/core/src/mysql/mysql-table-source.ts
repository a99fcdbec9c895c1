import type { SqlClient } from '../sql/sql-client.js';
import type { SqlHiSource } from '../sql/sql-hi-source.js';
import { createTableSource, toBigInt, type TableSourceOptions, type TableStatements } from '../sql/table-source.js';

/**
 * MariaDB/MySQL SQL of the table source. MariaDB 10.x has no `update … returning`, so the new value is
 * remembered with `LAST_INSERT_ID(expr)` and read back on the same connection, in a transaction of its own.
 */
export const mysqlTableStatements: TableStatements = {
  createTable: (t, s, v) => `create table if not exists ${t} (${s} varchar(255) not null primary key, ${v} bigint not null) engine=InnoDB`,
  insertRow: (t, s, v) => `insert into ${t} (${s}, ${v}) values (?, cast(? as signed)) on duplicate key update ${s} = ${s}`,
  advance(client, t, s, v, key, amount) {
    return client.transaction(async (tx) => {
      const { affectedRows } = await tx.query(`update ${t} set ${v} = last_insert_id(${v} + cast(? as signed)) where ${s} = ?`, [amount, key]);
      if (affectedRows === 0) return undefined;
      const { rows } = await tx.query<{ v: unknown }>('select cast(last_insert_id() as char) as v');
      return toBigInt(rows[0]?.v, 'LAST_INSERT_ID()');
    });
  },
  compareAndSet: (t, s, v) => `update ${t} set ${v} = cast(? as signed) where ${s} = ? and ${v} = cast(? as signed)`,
  raiseTo: (t, s, v) => `update ${t} set ${v} = cast(? as signed) where ${s} = ? and ${v} < cast(? as signed)`,
  maxOf: (t, c) => `select cast(max(${c}) as char) as m from ${t}`,
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
