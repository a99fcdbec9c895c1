import type { StoredKey, StoredKeyColumn } from '../engine/types.js';
import { DIALECTS } from '../dialects/index.js';
import { convertDriverError, isMissingObject } from '../sql/driver-errors.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SequenceSourceOptions, SequenceStrategy } from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { FloorFrom } from '../sources/sql-hi-source.js';
import { defaultSourceKind, sequenceSource, tableSource, type SqlSourceKind } from './sources.js';
import { sqlStoredKeys } from './stored-keys.js';
import type { TableSourceOptions, TableStrategy } from '../sources/table-source.js';
import { configurationErrors } from '../error-messages.js';

/** Options of {@link checkStore}. */
export interface CheckStoreOptions {
  /** The segment to check. */
  readonly segment: string;
  /** The tables and key columns (default `id`) the segment's keys are stored in. */
  readonly stored: readonly FloorFrom[];
  /**
   * The segment's source kind.
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind;
  /**
   * How the source is configured (hi table name, sequence naming, strategy, …). A sequence's own INCREMENT BY is
   * read from the database; the `hilo` strategy needs `increment` (its `maxLo`), which no sequence records.
   */
  readonly sourceOptions?: Omit<Partial<SequenceSourceOptions>, 'strategy'> &
    Omit<TableSourceOptions, 'strategy'> & {
      /** What the stored value means (the source refuses one it does not support). */
      readonly strategy?: SequenceStrategy | TableStrategy;
    };
}

/** What {@link checkStore} found. */
export interface StoreCheck {
  readonly segment: string;
  /** `ok` when the next block lies above every stored key; `behind` when it would hand out a key a row has. */
  readonly status: 'ok' | 'behind';
  /** The first key the segment's next reservation would hand out (read, not reserved). */
  readonly nextKey: bigint;
  /** The largest stored key, with its table and column; `undefined` when the tables hold none. */
  readonly largest: StoredKey | undefined;
  /** For `behind`: what is wrong, in one sentence. */
  readonly problem?: string;
  /** For `behind`: the `hilo floor` command that fixes it (with `--url <URL>` to fill in). */
  readonly fix?: string;
}

/**
 * Refuses stored-keys columns whose table does not exist (`HiLoConfigurationError`), where a check is asked for on
 * purpose (`hilo check`, `hilo next --stored`): a mistyped name would otherwise count as an empty table and the check
 * would pass without looking. One `select … where 1 = 0` per column; a missing column fails as the database says.
 *
 * @example
 * ```ts
 * await requireStoredTables(client, [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * ```
 */
export async function requireStoredTables(client: SqlClient, columns: readonly StoredKeyColumn[]): Promise<void> {
  const rules = DIALECTS[client.dialect];
  for (const [i, c] of columns.entries()) {
    const table = qualifiedName(rules, `stored[${i}].table`, c.table, rules.hasSchemas ? c.schema : undefined);
    const column = rules.quote(validateIdentifier(`stored[${i}].column`, c.column));
    const name = `${c.schema === undefined ? '' : `${c.schema}.`}${c.table}`;
    try {
      await client.query(`select ${column} from ${table} where 1 = 0`);
    } catch (error) {
      if (isMissingObject(error, rules)) {
        throw configurationErrors.storedTableNotFound(c.segment, name, c.column);
      }
      throw convertDriverError(error, { dialect: rules, action: `reading ${name}.${c.column}` });
    }
  }
}

/**
 * Whether a segment's hi store is ahead of the keys stored in its tables — what a process starting now would
 * find (DESIGN rule 6) — without reserving anything: it reads the largest stored key, then the store's position
 * (a sequence's `last_value`/`is_called` or MariaDB `next_not_cached_value`, a hi row's value), and compares the
 * key with the first key of the block the store would hand out next (the source's strategy arithmetic,
 * `nextFirstKey`). Nothing is created or changed; a missing sequence or row is an error, and so is a stored-keys
 * table that does not exist (see {@link requireStoredTables}). For `hilo check`.
 *
 * Read in that order, a correct concurrent writer never makes a store look behind: a key read first was stored
 * from a block reserved before the position was read, and the store hands out blocks in increasing order.
 *
 * @example
 * ```ts
 * const result = await checkStore(client, { segment: 'orders', stored: [{ table: 'orders', column: 'id' }] });
 * if (result.status === 'behind') console.error(result.problem, result.fix);
 * ```
 */
export async function checkStore(client: SqlClient, options: CheckStoreOptions): Promise<StoreCheck> {
  const kind = options.source ?? defaultSourceKind(client);
  const { segment } = options;
  const sourceOptions = { ...options.sourceOptions, create: false };
  if (kind === 'sequence' && sourceOptions.strategy === 'hilo' && sourceOptions.increment === undefined) {
    throw configurationErrors.hiloSequenceNeedsIncrement();
  }
  // each source validates its own strategies: a sequence refuses `range`, a table `pooled`
  const source =
    kind === 'table'
      ? tableSource(client, sourceOptions as TableSourceOptions)
      : sequenceSource(client, {
          ...(sourceOptions as SequenceSourceOptions),
          increment: sourceOptions.increment ?? 1,
        });
  const columns = options.stored.map((from) => ({
    segment,
    table: from.table,
    column: from.column ?? 'id',
    schema: from.schema,
  }));
  // a check that cannot look at a table is no check: a missing one is an error, not an empty table
  await requireStoredTables(client, columns);
  const keys = sqlStoredKeys(client, columns);
  const signal = new AbortController().signal;
  // the stored keys first, then the position: see above
  const largest = await keys.largest(segment, signal);
  const nextKey = await source.nextKey(segment, signal);
  if (largest === undefined || largest.key < nextKey) return { segment, status: 'ok', nextKey, largest };
  const where = `${largest.table}.${largest.column}`;
  return {
    segment,
    status: 'behind',
    nextKey,
    largest,
    problem:
      `The hi store of segment "${segment}" (${source.description}) is behind its stored keys: its next block ` +
      `would start at key ${nextKey}, but ${where} already holds key ${largest.key}.`,
    fix: `Run \`hilo floor --url <URL> --source ${kind} ${segment} --from ${where}\` to move the store above the stored keys.`,
  };
}
