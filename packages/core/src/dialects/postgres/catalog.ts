import type { Catalog, TableRef } from '../../sql/catalog.js';
import { toBigInt } from '../../sources/table-source.js';
import { postgresDialect } from './dialect.js';

/** PostgreSQL's regclass text of a table reference (quoted, so mixed-case names resolve as written). */
function regclass(ref: TableRef): string {
  const quote = postgresDialect.quote;
  return ref.schema === undefined ? quote(ref.table) : `${quote(ref.schema)}.${quote(ref.table)}`;
}

const KINDS: Record<string, string> = { S: 'sequence', r: 'table', p: 'table', v: 'view', m: 'materialized view' };

/** PostgreSQL's system catalogs (`pg_attribute`, `pg_index`, `pg_sequence`) and locks. */
export const postgresCatalog: Catalog = {
  async columnType(client, ref, column) {
    const { rows } = await client.query<{ t: string | null }>(
      `select format_type(a.atttypid, null) as t from pg_attribute a
        where a.attrelid = to_regclass($1) and a.attname = $2 and a.attnum > 0 and not a.attisdropped`,
      [regclass(ref), column],
    );
    return rows[0]?.t == null ? undefined : String(rows[0].t).toLowerCase();
  },
  async isUniqueColumn(client, ref, column) {
    const { rows } = await client.query<{ u: unknown }>(
      `select exists (select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and ` +
        `a.attnum = i.indkey[0]
                       where i.indrelid = to_regclass($1) and i.indisunique and i.indnatts ` +
        `= 1 and i.indpred is null and a.attname = $2) as u`,
      [regclass(ref), column],
    );
    return rows[0]?.u === true || rows[0]?.u === 't';
  },
  async primaryKeyColumns(client, ref) {
    const { rows } = await client.query<{ c: unknown }>(
      `select a.attname as c from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = to_regclass($1) and i.indisprimary`,
      [regclass(ref)],
    );
    return rows.map((row) => String(row.c));
  },
  async sequenceShape(client, ref) {
    const { rows } = await client.query<{ k: unknown; i: unknown; c: unknown }>(
      `select c.relkind::text as k, s.seqincrement::text as i, s.seqcycle as c
         from pg_class c left join pg_sequence s on s.seqrelid = c.oid where c.oid = to_regclass($1)`,
      [regclass(ref)],
    );
    const row = rows[0];
    if (row === undefined) return { kind: 'missing' };
    const kind = KINDS[String(row.k)] ?? 'relation';
    if (kind !== 'sequence') return { kind };
    return { kind, increment: toBigInt(row.i, 'seqincrement'), cycles: row.c === true || row.c === 't' };
  },
  async nextValues(client, quoted, count) {
    const { rows } = await client.query<{ v: unknown }>(
      `select nextval($1::regclass)::text as v from generate_series(1, ${count})`,
      [quoted],
    );
    return rows.map((row) => row.v);
  },
  insertUnlessExists: (table, segment, value) =>
    `insert into ${table} (${segment}, ${value}) values ($1, $2) on conflict (${segment}) do nothing`,
  withTableLock: (client, table, work) =>
    client.transaction(async (tx) => {
      await tx.query(`lock table ${table} in share row exclusive mode`);
      return work(tx);
    }),
};
