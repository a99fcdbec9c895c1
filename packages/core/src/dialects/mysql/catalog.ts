import type { Catalog } from '../../sql/catalog.js';
import { toBigInt } from '../../sources/table-source.js';
import { mysqlDialect } from './dialect.js';
import { sourceErrors } from '../../error-messages.js';

/** MariaDB's `information_schema`, its sequences (`seq_1_to_n` for several values at once) and named locks. */
export const mysqlCatalog: Catalog = {
  async columnType(client, ref, column) {
    const { rows } = await client.query<{ t: string | null }>(
      'select data_type as t from information_schema.columns where table_schema = coalesce(?, database()) ' +
        'and table_name = ? and column_name = ?',
      [ref.schema ?? null, ref.table, column],
    );
    return rows[0]?.t == null ? undefined : String(rows[0].t).toLowerCase();
  },
  async isUniqueColumn(client, ref, column) {
    const { rows } = await client.query<{ u: unknown }>(
      `select count(*) as u from information_schema.statistics s
        where s.table_schema = coalesce(?, database()) and s.table_name = ? and s.column_name = ? and s.non_unique = 0
          and (select count(*) from information_schema.statistics o
                where o.table_schema = s.table_schema and o.table_name = s.table_name and o.index_name = s.index_name) = 1`,
      [ref.schema ?? null, ref.table, column],
    );
    return Number(rows[0]?.u) > 0;
  },
  async primaryKeyColumns(client, ref) {
    const { rows } = await client.query<{ c: unknown }>(
      `select column_name as c from information_schema.key_column_usage
        where table_schema = coalesce(?, database()) and table_name = ? and constraint_name = 'PRIMARY'`,
      [ref.schema ?? null, ref.table],
    );
    return rows.map((row) => String(row.c));
  },
  async sequenceShape(client, ref) {
    const { rows } = await client.query<{ t: unknown }>(
      'select table_type as t from information_schema.tables where table_schema = coalesce(?, database()) and table_name = ?',
      [ref.schema ?? null, ref.table],
    );
    if (rows[0] === undefined) return { kind: 'missing' };
    const type = String(rows[0].t).toUpperCase();
    if (type !== 'SEQUENCE') return { kind: type === 'VIEW' ? 'view' : 'table' };
    const quote = mysqlDialect.quote;
    const quoted = ref.schema === undefined ? quote(ref.table) : `${quote(ref.schema)}.${quote(ref.table)}`;
    const { rows: options } = await client.query<{ i: unknown; c: unknown }>(
      `select cast(increment as char) as i, cycle_option as c from ${quoted}`,
    );
    return { kind: 'sequence', increment: toBigInt(options[0]?.i, 'increment'), cycles: Number(options[0]?.c) === 1 };
  },
  async nextValues(client, quoted, count) {
    const sql =
      count === 1
        ? `select cast(nextval(${quoted}) as char) as v`
        : `select cast(nextval(${quoted}) as char) as v from seq_1_to_${count}`;
    const { rows } = await client.query<{ v: unknown }>(sql);
    return rows.map((row) => row.v);
  },
  insertUnlessExists: (table, segment, value) =>
    `insert into ${table} (${segment}, ${value}) values (?, cast(? as signed)) on duplicate key update ${segment} = ${segment}`,
  withTableLock: (client, table, work) =>
    client.transaction(async (tx) => {
      const name = `hilo-preset:${table}`.slice(0, 64);
      const { rows } = await tx.query<{ l: unknown }>('select get_lock(?, 60) as l', [name]);
      if (Number(rows[0]?.l) !== 1) {
        // another process holds it for longer than a preset's insert takes: worth trying again, like a lock wait timeout
        throw sourceErrors.namedLockHeld(name);
      }
      try {
        return await work(tx);
      } finally {
        await tx.query('select release_lock(?)', [name]);
      }
    }),
};
