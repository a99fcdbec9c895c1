import type { SqlClient } from '../sql/sql-client.js';
import type { SqlHiSource } from '../sql/sql-hi-source.js';
import { createTableSource, toBigInt, type TableSourceOptions, type TableStatements } from '../sql/table-source.js';

/**
 * SQLite SQL of the table source: `begin immediate` takes the write lock up front (waiting up to the busy
 * timeout when another process holds it), then `update … returning`, then commit.
 */
export const sqliteTableStatements: TableStatements = {
  createTable: (t, s, v) => `create table if not exists ${t} (${s} text not null primary key, ${v} integer not null)`,
  insertRow: (t, s, v) => `insert into ${t} (${s}, ${v}) values (?, ?) on conflict (${s}) do nothing`,
  advance(client, t, s, v, key, amount) {
    return client.transaction(async (tx) => {
      const { rows } = await tx.query<{ v: unknown }>(
        `update ${t} set ${v} = ${v} + ? where ${s} = ? returning cast(${v} as text) as v`,
        [amount, key],
      );
      return rows[0] === undefined ? undefined : toBigInt(rows[0].v, 'the stored value');
    });
  },
  compareAndSet: (t, s, v) => `update ${t} set ${v} = ? where ${s} = ? and ${v} = ?`,
  raiseTo: (t, s, v) => `update ${t} set ${v} = ? where ${s} = ? and ${v} < ?`,
  maxOf: (t, c) => `select cast(max(${c}) as text) as m from ${t}`,
  readAll: (t, s, v) => `select ${s} as s, cast(${v} as text) as v from ${t}`,
};

/**
 * A SQLite hi table: one row per segment (default `hilo_segments(segment, next_value)`). Safe across
 * processes sharing the file; open it with a busy timeout (`connect('sqlite:app.db')` sets 5 s).
 *
 * @example
 * ```ts
 * const source = sqliteTableSource(await connect('sqlite:app.db'));
 * ```
 */
export function sqliteTableSource(client: SqlClient, options: TableSourceOptions = {}): SqlHiSource {
  return createTableSource(client, options, sqliteTableStatements);
}
