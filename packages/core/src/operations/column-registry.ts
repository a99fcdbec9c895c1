// One column, one segment, across processes and deploys (DESIGN rule 13, issue 52): the store records which segment
// keys each column, in a table of its own next to the hi store, and a segment claiming a column recorded for another
// is refused before it hands out a key.
//
// Why a table of its own, `hilo_columns(column_ref primary key, segment, moving_from)`: the primary key on the column
// makes the first claim atomic and race-free in every database (two processes inserting the same column: one row
// wins, the other reads it), it serves sequences and hi tables alike, and it never changes a hi table that Hibernate,
// EF Core or NHibernate share with hilo (a column added there, or a comment on their sequence, would change their
// schema).
import type { Block, HiSource, ReserveRequest, StoredKeyColumn, StoredKeys } from '../engine/types.js';
import type { Dialect } from '../sql/dialect.js';
import { convertDriverError, isDuplicate, isMissingObject } from '../sql/driver-errors.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SqlClient } from '../sql/sql-client.js';
import { abortable } from '../sql/abortable.js';
import { DIALECTS } from '../dialects/index.js';
import { mismatchErrors, sourceErrors } from '../error-messages.js';

/** The table that records which segment keys each column, in the hi store's schema. */
export const COLUMN_TABLE = 'hilo_columns';

/** One column as the store records it. */
export interface ColumnRecord {
  /** `schema.table.column` (`table.column` on SQLite), folded to lower case where names ignore case. */
  readonly column: string;
  /** The segment that keys it. */
  readonly segment: string;
  /** While `hilo move` moves it: the segment it keys no longer, whose store the new one is being raised above. */
  readonly movingFrom: string | undefined;
}

/** The record of one hi store's columns. */
export interface ColumnRegistry {
  /** The quoted, qualified registry table. */
  readonly table: string;
  /** The column as recorded: schema-qualified with the connection's schema where the column names none. */
  refOf(column: Pick<StoredKeyColumn, 'schema' | 'table' | 'column'>): Promise<string>;
  /**
   * Creates the registry table unless it exists; resolves with whether it exists now (false: it could not be
   * created, e.g. a role without CREATE; nothing is recorded then).
   */
  ensure(): Promise<boolean>;
  /** The records of `refs` (all of them without). A missing registry table holds none. */
  read(refs?: readonly string[]): Promise<Map<string, ColumnRecord>>;
  /**
   * Records `segment` for each of its columns not recorded yet, and refuses (HiLoMismatchError with `claim`) a
   * column recorded for another segment; a column being moved to `segment` is a retryable HiLoSourceError.
   */
  claim(segment: string, columns: readonly StoredKeyColumn[], signal?: AbortSignal): Promise<void>;
  /** Inserts a record unless one exists; resolves with whether it did. */
  insert(ref: string, segment: string, movingFrom: string | undefined): Promise<boolean>;
  /** Sets a record's segment and `moving_from` where it still reads `expect`; resolves with whether it did. */
  update(ref: string, set: Omit<ColumnRecord, 'column'>, expect: Omit<ColumnRecord, 'column'>): Promise<boolean>;
}

/**
 * The column registry of the hi store in `schema` (default: the connection's).
 *
 * @example
 * ```ts
 * await columnRegistry(client).claim('orders', [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * ```
 */
export function columnRegistry(
  client: SqlClient,
  options: { readonly schema?: string | undefined } = {},
): ColumnRegistry {
  const rules: Dialect = DIALECTS[client.dialect];
  const schema = rules.hasSchemas ? options.schema : undefined;
  const table = qualifiedName(rules, 'column registry', COLUMN_TABLE, schema);
  const [ref, seg, moving] = ['column_ref', 'segment', 'moving_from'].map((name) => rules.quote(name)) as [
    string,
    string,
    string,
  ];
  const fold = rules.namesIgnoreCase ? (name: string) => name.toLowerCase() : (name: string) => name;
  const p = (n: number) => rules.placeholder(n);
  let current: Promise<string | undefined> | undefined;
  let ensured: Promise<boolean> | undefined;
  let warned = false;

  const fail = (error: unknown, action: string) =>
    convertDriverError(error, {
      dialect: rules,
      action: `${action} (${DIALECTS[client.dialect].displayName} table ${table})`,
    });

  /** The schema unqualified names resolve in, read once. */
  const currentSchema = (): Promise<string | undefined> => {
    if (rules.currentSchema === undefined) return Promise.resolve(undefined);
    if (current === undefined) {
      current = client
        .query<{ s: unknown }>(`select ${rules.currentSchema} as s`)
        .then(({ rows }) => (typeof rows[0]?.s === 'string' ? rows[0].s : undefined));
      current.catch(() => (current = undefined));
    }
    return current;
  };

  async function refOf(column: Pick<StoredKeyColumn, 'schema' | 'table' | 'column'>): Promise<string> {
    const name = `${validateIdentifier('table', column.table)}.${validateIdentifier('column', column.column)}`;
    if (!rules.hasSchemas) return fold(name);
    const where = column.schema ?? (await currentSchema());
    return fold(where === undefined ? name : `${where}.${name}`);
  }

  async function create(): Promise<boolean> {
    try {
      await client.query(
        `create table if not exists ${table} (${ref} varchar(255) not null primary key, ${seg} varchar(255) not null, ` +
          `${moving} varchar(255))${rules.tableSuffix}`,
      );
      return true;
    } catch (error) {
      // two processes creating it at once: one wins, the other sees a duplicate
      if (isDuplicate(error, rules)) return true;
      // a role that may not create it: recording waits for `hilo init`, and says so once
      try {
        await client.query(`select ${ref} from ${table} where 1 = 0`);
        return true;
      } catch {
        if (!warned) {
          warned = true;
          process.emitWarning(
            `hilo: could not create ${table}, where hilo records which segment keys each column (${String(error)}); ` +
              `two segments keying one column across processes are not refused until it exists. Run \`hilo init\` ` +
              `with a role that may create tables.`,
            { code: 'HILO_COLUMNS_UNRECORDED' },
          );
        }
        return false;
      }
    }
  }

  function ensure(): Promise<boolean> {
    if (ensured === undefined) {
      ensured = create();
      ensured.then(
        (ok) => (ok ? undefined : (ensured = undefined)),
        () => (ensured = undefined),
      );
    }
    return ensured;
  }

  async function read(refs?: readonly string[]): Promise<Map<string, ColumnRecord>> {
    const found = new Map<string, ColumnRecord>();
    if (refs !== undefined && refs.length === 0) return found;
    // on a Galera node, a record another node just wrote must be seen
    const causal = (await rules.replication?.causalRead?.(client)) ?? '';
    const where = refs === undefined ? '' : ` where ${ref} in (${refs.map((_, i) => p(i + 1)).join(', ')})`;
    try {
      const { rows } = await client.query<{ c: string; s: string; m: string | null | undefined }>(
        `${causal}select ${ref} as c, ${seg} as s, ${moving} as m from ${table}${where} order by ${ref}`,
        refs ?? [],
      );
      for (const row of rows) {
        const column = String(row.c);
        found.set(column, {
          column,
          segment: String(row.s),
          movingFrom: row.m ?? undefined,
        });
      }
      return found;
    } catch (error) {
      if (isMissingObject(error, rules)) return found;
      throw fail(error, 'reading which segment keys each column');
    }
  }

  async function insert(column: string, segment: string, movingFrom: string | undefined): Promise<boolean> {
    try {
      await client.query(`insert into ${table} (${ref}, ${seg}, ${moving}) values (${p(1)}, ${p(2)}, ${p(3)})`, [
        column,
        segment,
        movingFrom ?? null,
      ]);
      return true;
    } catch (error) {
      // another process recorded it first: its record is read back and decides
      if (isDuplicate(error, rules)) return false;
      throw fail(error, `recording segment "${segment}" for column ${column}`);
    }
  }

  async function update(
    column: string,
    set: Omit<ColumnRecord, 'column'>,
    expect: Omit<ColumnRecord, 'column'>,
  ): Promise<boolean> {
    const movingNow = expect.movingFrom === undefined ? `${moving} is null` : `${moving} = ${p(5)}`;
    try {
      const { affectedRows } = await client.query(
        `update ${table} set ${seg} = ${p(1)}, ${moving} = ${p(2)} where ${ref} = ${p(3)} and ${seg} = ${p(4)} and ` +
          movingNow,
        [
          set.segment,
          set.movingFrom ?? null,
          column,
          expect.segment,
          ...(expect.movingFrom === undefined ? [] : [expect.movingFrom]),
        ],
      );
      return affectedRows === 1;
    } catch (error) {
      throw fail(error, `moving column ${column} to segment "${set.segment}"`);
    }
  }

  async function claim(segment: string, columns: readonly StoredKeyColumn[], signal?: AbortSignal): Promise<void> {
    if (columns.length === 0) return;
    const work = async () => {
      const refs = [...new Set(await Promise.all(columns.map(refOf)))];
      let records = await read(refs);
      const missing = refs.filter((r) => !records.has(r));
      if (missing.length > 0) {
        // an existing store recorded nothing yet (a table made before hilo recorded columns): recorded now
        if (!(await ensure())) return;
        for (const column of missing) await insert(column, segment, undefined);
        records = await read(refs);
      }
      for (const column of refs) {
        const record = records.get(column);
        if (record === undefined) continue;
        if (record.segment !== segment) {
          throw mismatchErrors.columnKeyedByOtherSegment(
            column,
            record.segment,
            segment,
            record.movingFrom === segment,
          );
        }
        if (record.movingFrom !== undefined) throw sourceErrors.columnBeingMoved(column, record.movingFrom, segment);
      }
    };
    await (signal === undefined
      ? work()
      : abortable(work(), signal, `checking which segment keys the columns of "${segment}"`));
  }

  return { table, refOf, ensure, read, claim, insert, update };
}

/**
 * `source` with its segments' columns recorded and checked (DESIGN rule 13): before a segment's first reservation
 * its columns (from `storedKeys.columns`) are claimed, and after each reservation checked again, so a process whose
 * segment lost its column to `hilo move` keeps none of the blocks it reserved since. A segment without known columns
 * is neither recorded nor checked.
 */
export function recordingColumns<S extends HiSource>(source: S, registry: ColumnRegistry, storedKeys: StoredKeys): S {
  const columnsOf = (segment: string) => storedKeys.columns?.(segment) ?? [];
  return {
    ...source,
    async prepare(segment: string, signal: AbortSignal): Promise<void> {
      await source.prepare?.(segment, signal);
      await registry.claim(segment, columnsOf(segment), signal);
    },
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      const blocks = await source.reserve(segment, request);
      // the column may have moved to another segment while this one reserved: its blocks are never handed out
      await registry.claim(segment, columnsOf(segment), request.signal);
      return blocks;
    },
  };
}

/**
 * `source` recording and checking the key columns of its segments in `hilo_columns` (DESIGN rule 13: one column,
 * one segment, across processes and deploys), for code that builds its generator from a source of its own
 * (`createHiLo` does it itself): before a segment's first reservation its columns (`storedKeys.columns`) are
 * recorded, and a segment claiming a column recorded for another is refused (`HiLoMismatchError` with `claim`);
 * after each reservation they are checked again. Unchanged when `storedKeys` names no columns.
 *
 * @param schema - where `hilo_columns` lives: the hi store's schema (PostgreSQL) or database (MariaDB).
 * @example
 * ```ts
 * const storedKeys = sqlStoredKeys(client, [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * const source = recordColumns(client, sequenceSource(client, { increment: 100 }), storedKeys);
 * const hilo = createHiLoGenerator({ source, storedKeys });
 * ```
 */
export function recordColumns<S extends HiSource>(
  client: SqlClient,
  source: S,
  storedKeys: StoredKeys | undefined,
  schema?: string,
): S {
  if (storedKeys?.columns === undefined) return source;
  return recordingColumns(source, columnRegistry(client, { schema }), storedKeys);
}
