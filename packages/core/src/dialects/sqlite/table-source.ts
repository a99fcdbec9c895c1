import type { SqlClient } from '../../sql/sql-client.js';
import { sqliteDialect } from './dialect.js';
import type { SqlHiSource } from '../../sources/sql-hi-source.js';
import {
  createTableSource,
  toBigInt,
  type TableSourceOptions,
  type TableStatements,
} from '../../sources/table-source.js';

/**
 * SQLite SQL of the table source. A reservation is one autocommit `update … returning`: SQLite runs a single
 * statement as its own transaction, taking the write lock (waiting up to the busy timeout when another
 * connection holds it) and releasing it before the statement returns. An explicit BEGIN … COMMIT around it
 * would hold the lock across event-loop turns, where a synchronous driver's other connection in the same
 * thread could then block on it.
 */
export const sqliteTableStatements: TableStatements = {
  dialect: sqliteDialect,
  createTable: (t, s, v) => `create table if not exists ${t} (${s} text not null primary key, ${v} integer not null)`,
  insertRow: (t, s, v) => `insert into ${t} (${s}, ${v}) values (?, ?) on conflict (${s}) do nothing`,
  async advance(client, t, s, v, key, amount) {
    const sql = `update ${t} set ${v} = ${v} + ? where ${s} = ? returning cast(${v} as text) as v`;
    const { rows } = client.atomic
      ? await client.atomic<{ v: unknown }>(sql, [amount, key])
      : await client.transaction((tx) => tx.query<{ v: unknown }>(sql, [amount, key]));
    return rows[0] === undefined ? undefined : toBigInt(rows[0].v, 'the stored value');
  },
  compareAndSet: (t, s, v) => `update ${t} set ${v} = ? where ${s} = ? and ${v} = ?`,
  raiseTo: (t, s, v) => `update ${t} set ${v} = ? where ${s} = ? and ${v} < ?`,
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
