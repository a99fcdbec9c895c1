import { checkInteger } from '../engine/checks.js';
import { validateSegment } from '../engine/segment-name.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SqlClient } from '../sql/sql-client.js';
import { toBigInt } from '../sources/table-source.js';
import { incrementsFor, keyArithmetic } from '../engine/strategies.js';
import type { Block, HiSource, ReserveRequest, StoredKeyColumn } from '../engine/types.js';
import { relationExists, integerColumnProblem, once } from './shape.js';
import {
  createTableIfMissing,
  createItHint,
  guarded,
  peerStoredKeys,
  requireDialect,
  setting,
  withTableLock,
  type InteropPreset,
} from './shared.js';
import { DIALECTS } from '../dialects/index.js';
import { mismatchErrors, sourceErrors } from '../error-messages.js';

/** Options of {@link nhibernatePreset}; each mirrors a parameter of NHibernate's `hilo` generator. */
export interface NHibernatePresetOptions {
  /**
   * `max_lo`: each hi stands for `max_lo + 1` keys. With 0, every `next_hi` value is one key (NHibernate's
   * `max_lo < 1` case).
   * @default 32767 (NHibernate's `Int16.MaxValue`)
   */
  readonly maxLo?: number;
  /**
   * `table`.
   * @default 'hibernate_unique_key'
   */
  readonly table?: string;
  /** `schema` (database on MariaDB); default: the connection's. */
  readonly schema?: string;
  /**
   * `column`.
   * @default 'next_hi'
   */
  readonly column?: string;
  /**
   * NHibernate's `where` parameter as a structured row selector: the segment's row is the one whose
   * `column` equals `value` (for `where="entity = 'orders'"`, return `{ column: 'entity', value: 'orders' }`).
   * Without it, every segment shares the table's single row, as NHibernate does by default.
   */
  readonly where?: (segment: string) => { readonly column: string; readonly value: string };
  /**
   * Whether hilo creates the table and the row (`next_hi` = 1, as NHibernate's schema export does) when
   * missing. The row of a `where` selector is created with its column set to the selector's value.
   * @default true
   */
  readonly create?: boolean;
  /**
   * The tables and key columns (primary or unique keys) each segment's keys are stored in, as
   * `createHiLo({ storedKeys })` takes them.
   * Every block is then checked before its first key is handed out; a key NHibernate (or Hibernate's `hilo`) stored inside it means the two
   * sides read the hi with different settings, and the segment is refused with a `HiLoMismatchError` naming
   * them (see "Verified blocks" in README-interop).
   * @default none
   * @example
   * ```ts
   * nhibernatePreset(client, { maxLo: 100, storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }] })
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[];
}

/**
 * Shares NHibernate's table hi/lo (`hibernate_unique_key(next_hi)`): in a transaction of its own hilo
 * reads `next_hi` with `select … for update`, advances it with `update … where next_hi = ?` (looping until one
 * row changes) and hands out `hi × (max_lo + 1) + 0…max_lo`, skipping key 0 — NHibernate's
 * `TableHiLoGenerator` formula. Before any key is handed out the column is checked to be an integer column (a text,
 * numeric or float `next_hi` is refused with a `HiLoMismatchError`). PostgreSQL and MariaDB.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...nhibernatePreset(client, { maxLo: 100 }), adaptive: false });
 * ```
 */
export function nhibernatePreset(client: SqlClient, options: NHibernatePresetOptions = {}): InteropPreset {
  const maxLo = checkInteger('maxLo', options.maxLo ?? 32767, { min: 0 });
  const dialect = requireDialect(client, 'NHibernate', ['postgres', 'mysql']);
  const d = DIALECTS[dialect];
  const table = qualifiedName(DIALECTS[dialect], 'table', options.table ?? 'hibernate_unique_key', options.schema);
  const col = d.quote(validateIdentifier('column', options.column ?? 'next_hi'));
  const create = options.create ?? true;
  const perHi = BigInt(maxLo) + 1n;
  const description = `${dialect} NHibernate hi/lo table ${table}`;
  const maxLoIs = (size: string) =>
    `max_lo of NHibernate's (or Hibernate 3.x's hilo/TableHiLoGenerator) generator is ${size} than \`maxLo: ${maxLo}\``;
  const verified = peerStoredKeys(client, options.storedKeys, {
    preset: 'nhibernatePreset',
    peer: 'NHibernate',
    store: (segment) => {
      const row = options.where?.(segment);
      return row === undefined ? table : `row ${row.column} = ${JSON.stringify(row.value)} of ${table}`;
    },
    settings: setting('maxLo', maxLo, options.maxLo),
    ahead: [
      maxLoIs('larger'),
      `the other side reads next_hi with another formula (e.g. Hibernate's enhanced hilo optimizer)`,
    ],
    behind: [maxLoIs('smaller')],
  });
  const rawTable = options.table ?? 'hibernate_unique_key';
  const rawColumn = options.column ?? 'next_hi';
  const checkShape = once(async () => {
    if (!(await relationExists(client, { table: rawTable, schema: options.schema })))
      throw sourceErrors.storeMissing(description, hint);
    const problem = await integerColumnProblem(client, { table: rawTable, schema: options.schema }, rawColumn);
    if (problem !== undefined) {
      throw mismatchErrors.nhibernateTableShape(table, problem);
    }
  });
  const hint = createItHint(
    `Create it as NHibernate's schema export does: create table ${table} (${col} bigint); insert into ${table} values (1);`,
  );

  function rowOf(segment: string): { column: string; value: string } | undefined {
    validateSegment(segment);
    const row = options.where?.(segment);
    if (row === undefined) return undefined;
    return { column: d.quote(validateIdentifier('where column', row.column)), value: validateSegment(row.value) };
  }

  const source: HiSource = {
    description,
    async prepare(segment: string, signal: AbortSignal): Promise<void> {
      const row = rowOf(segment);
      await guarded(client, signal, `preparing ${description}`, hint, async () => {
        if (create) {
          const columns = row === undefined ? `${col} bigint` : `${col} bigint, ${row.column} varchar(255)`;
          await createTableIfMissing(
            client,
            `create table if not exists ${table} (${columns})${DIALECTS[dialect].tableSuffix}`,
          );
          // the table has no key to conflict on: an exclusive lock makes "insert unless a row exists" race-free
          await withTableLock(client, table, async (tx) => {
            const { rows: found } =
              row === undefined
                ? await tx.query(`select 1 from ${table}`)
                : await tx.query(`select 1 from ${table} where ${row.column} = ${d.placeholder(1)}`, [row.value]);
            if (found.length > 0) return;
            if (row === undefined) await tx.query(`insert into ${table} (${col}) values (1)`);
            else
              await tx.query(`insert into ${table} (${col}, ${row.column}) values (1, ${d.placeholder(1)})`, [
                row.value,
              ]);
          });
        }
        const { rows } =
          row === undefined
            ? await client.query(`select 1 from ${table}`)
            : await client.query(`select 1 from ${table} where ${row.column} = ${d.placeholder(1)}`, [row.value]);
        if (rows.length !== 1) {
          throw sourceErrors.notOneRow(description, row, rows.length, hint);
        }
        await checkShape();
      });
    },
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      const row = rowOf(segment);
      const count = BigInt(incrementsFor(request.size, Number(perHi)));
      const where = row === undefined ? '' : ` and ${row.column} = ${d.placeholder(3)}`;
      const cast = DIALECTS[dialect].asSigned;
      const params = row === undefined ? [] : [row.value];
      await guarded(client, request.signal, `checking ${description}`, hint, checkShape);
      const hi = await guarded(
        client,
        request.signal,
        `reserving keys for "${segment}" from ${description}`,
        hint,
        () =>
          client.transaction(async (tx) => {
            for (;;) {
              const { rows } =
                row === undefined
                  ? await tx.query<{ v: unknown }>(`select ${d.asText(col)} as v from ${table} for update`)
                  : await tx.query<{ v: unknown }>(
                      `select ${d.asText(col)} as v from ${table} where ${row.column} = ${d.placeholder(1)} for update`,
                      params,
                    );
              if (rows.length !== 1) throw sourceErrors.notOneRowToRead(description, rows.length, hint);
              const current = toBigInt(rows[0]!.v, col);
              const updated = await tx.query(
                `update ${table} set ${col} = ${cast(d.placeholder(1))} where ${col} = ${cast(d.placeholder(2))}${where}`,
                [String(current + count), String(current), ...params],
              );
              if (updated.affectedRows === 1) return current;
            }
          }),
      );
      // NHibernate uses the value it read as hi; his hi … hi + count - 1 are ours (key 0 skipped)
      const his = Array.from({ length: Number(count) }, (_, i) => hi + BigInt(i));
      return keyArithmetic.blocksFromValues('hilo', his, perHi);
    },
  };
  return { source, blockSize: Number(perHi), ...verified };
}
