/**
 * Reads the shape of the other system's objects (column types, unique keys, sequence options), so a preset
 * can refuse a table or sequence whose values it would misread instead of handing out keys from it.
 */
import { HiLoMismatchError } from '../errors.js';
import { toBigInt } from '../sql/table-source.js';
import type { SqlClient } from '../sql/sql-client.js';

/** A table as the user named it: unquoted name and optional schema (database on MariaDB). */
export interface TableRef {
  readonly table: string;
  readonly schema: string | undefined;
}

/** Integer column types: a stored hi or value in any other type (text, numeric, float) is not one we can trust. */
const INTEGER_TYPES = new Set(['bigint', 'integer', 'int', 'smallint', 'mediumint', 'tinyint', 'int8', 'int4', 'int2']);

/** PostgreSQL's regclass text of a table reference (quoted, so mixed-case names resolve as written). */
function pgRegclass(ref: TableRef): string {
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  return ref.schema === undefined ? quote(ref.table) : `${quote(ref.schema)}.${quote(ref.table)}`;
}

/**
 * The type of `column` in `ref` (lowercase, without length or modifiers), or `undefined` when the table has no
 * such column. Only PostgreSQL and MariaDB hold the other systems' tables.
 */
export async function columnType(client: SqlClient, ref: TableRef, column: string): Promise<string | undefined> {
  if (client.dialect === 'postgres') {
    const { rows } = await client.query<{ t: unknown }>(
      `select format_type(a.atttypid, null) as t from pg_attribute a
        where a.attrelid = to_regclass($1) and a.attname = $2 and a.attnum > 0 and not a.attisdropped`,
      [pgRegclass(ref), column],
    );
    return rows[0]?.t == null ? undefined : String(rows[0].t).toLowerCase();
  }
  const { rows } = await client.query<{ t: unknown }>(
    'select data_type as t from information_schema.columns where table_schema = coalesce(?, database()) and table_name = ? and column_name = ?',
    [ref.schema ?? null, ref.table, column],
  );
  return rows[0]?.t == null ? undefined : String(rows[0].t).toLowerCase();
}

/** Whether `column` alone is the primary key or a unique key of `ref`. */
export async function isUniqueColumn(client: SqlClient, ref: TableRef, column: string): Promise<boolean> {
  if (client.dialect === 'postgres') {
    const { rows } = await client.query<{ u: unknown }>(
      `select exists (select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
                       where i.indrelid = to_regclass($1) and i.indisunique and i.indnatts = 1 and i.indpred is null and a.attname = $2) as u`,
      [pgRegclass(ref), column],
    );
    return rows[0]?.u === true || rows[0]?.u === 't';
  }
  const { rows } = await client.query<{ u: unknown }>(
    `select count(*) as u from information_schema.statistics s
      where s.table_schema = coalesce(?, database()) and s.table_name = ? and s.column_name = ? and s.non_unique = 0
        and (select count(*) from information_schema.statistics o
              where o.table_schema = s.table_schema and o.table_name = s.table_name and o.index_name = s.index_name) = 1`,
    [ref.schema ?? null, ref.table, column],
  );
  return Number(rows[0]?.u) > 0;
}

/** Whether a table, view or sequence named `ref` exists. */
export async function relationExists(client: SqlClient, ref: TableRef): Promise<boolean> {
  return (await sequenceShape(client, ref)).kind !== 'missing';
}

/** What a shape check found wrong with one column, or `undefined` when it is an integer column. */
export async function integerColumnProblem(client: SqlClient, ref: TableRef, column: string): Promise<string | undefined> {
  const type = await columnType(client, ref, column);
  if (type === undefined) return (await relationExists(client, ref)) ? `it has no column ${column}` : 'it does not exist';
  return INTEGER_TYPES.has(type) ? undefined : `${column} is ${type}, not an integer type`;
}

/** The facts about a sequence that decide whether its values can be shared: kind of object, step, cycling. */
export interface SequenceShape {
  /** `'sequence'`, `'missing'`, or what the name is instead (`'table'`, `'view'` …). */
  readonly kind: string;
  readonly increment?: bigint;
  /** A cycling sequence starts again at its minimum after its maximum: values, and so keys, repeat. */
  readonly cycles?: boolean;
}

/** Reads a sequence's shape; `ref.table` is the sequence name. */
export async function sequenceShape(client: SqlClient, ref: TableRef): Promise<SequenceShape> {
  if (client.dialect === 'postgres') {
    const { rows } = await client.query<{ k: unknown; i: unknown; c: unknown }>(
      `select c.relkind::text as k, s.seqincrement::text as i, s.seqcycle as c
         from pg_class c left join pg_sequence s on s.seqrelid = c.oid where c.oid = to_regclass($1)`,
      [pgRegclass(ref)],
    );
    const row = rows[0];
    if (row === undefined) return { kind: 'missing' };
    const kinds: Record<string, string> = { S: 'sequence', r: 'table', p: 'table', v: 'view', m: 'materialized view' };
    const kind = kinds[String(row.k)] ?? 'relation';
    if (kind !== 'sequence') return { kind };
    return { kind, increment: toBigInt(row.i, 'seqincrement'), cycles: row.c === true || row.c === 't' };
  }
  const { rows } = await client.query<{ t: unknown }>(
    'select table_type as t from information_schema.tables where table_schema = coalesce(?, database()) and table_name = ?',
    [ref.schema ?? null, ref.table],
  );
  if (rows[0] === undefined) return { kind: 'missing' };
  const type = String(rows[0].t).toUpperCase();
  if (type !== 'SEQUENCE') return { kind: type === 'VIEW' ? 'view' : 'table' };
  const quoted = ref.schema === undefined ? `\`${ref.table}\`` : `\`${ref.schema}\`.\`${ref.table}\``;
  const { rows: options } = await client.query<{ i: unknown; c: unknown }>(`select cast(increment as char) as i, cycle_option as c from ${quoted}`);
  return { kind: 'sequence', increment: toBigInt(options[0]?.i, 'increment'), cycles: Number(options[0]?.c) === 1 };
}

/**
 * Throws a `HiLoMismatchError` naming `preset` when `ref` exists but is not a sequence hilo can share: another
 * kind of object, or a sequence that cycles. A missing sequence passes (the preset creates it or says so).
 */
export async function requireShareableSequence(client: SqlClient, preset: string, ref: TableRef, display: string, fix: string): Promise<void> {
  const shape = await sequenceShape(client, ref);
  if (shape.kind === 'missing') return;
  if (shape.kind !== 'sequence') {
    throw new HiLoMismatchError(`${preset}: ${display} is a ${shape.kind}, not a sequence, so its values are not what the preset reads. ${fix}`);
  }
  if (shape.cycles === true) {
    throw new HiLoMismatchError(
      `${preset}: sequence ${display} is declared CYCLE: after its maximum it returns to its minimum, and every key would be handed out again. ` +
        `Alter it to NO CYCLE (\`alter sequence ${display} no cycle\`) in every application sharing it. ${fix}`,
    );
  }
}

/** Memoises an async check until it succeeds (a failure is retried at the next call). */
export function once(check: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= check().catch((error: unknown) => {
      done = undefined;
      throw error;
    });
    return done;
  };
}
