import type { Block, StoredKeyColumn } from '../engine/types.js';
import { configurationErrors } from '../error-messages.js';

/** A probe of a key column whose table does not exist on the probing connection. */
export interface MissingProbeTable {
  /** The column as configured (its `schema` is absent when the table was named unqualified). */
  readonly column: StoredKeyColumn;
  /** The block being checked (`within`); absent for the segment's first `largest` and for `counts`. */
  readonly block?: Block | undefined;
}

/**
 * What an adapter does when a table its ORM maps is still missing after keys of its segment were handed out:
 * `'error'` refuses the block with a `HiLoConfigurationError` naming the table, the schema looked in and the
 * options that fix it; `'warn'` goes on unchecked for that table, with a `HILO_STORED_KEYS_UNCHECKED` process
 * warning once per table.
 */
export type OnMissingTable = 'error' | 'warn';

/** How an adapter words {@link missingTableRule}'s message. */
export interface MissingTableWording {
  /** How the adapter is called in messages, e.g. `"installHiLo()"`. */
  readonly owner: string;
  /**
   * Where the adapter's user sets a table's schema, in the ORM's words, e.g. `"pgSchema('shop') on the table"`;
   * the message adds the generic fixes (a connection that sees the application's tables, `onMissingTable`).
   */
  readonly schemaOption?: string | undefined;
}

/** A table as the message names it: `"shop"."orders"` or `"orders"`. */
function tableName(column: StoredKeyColumn): string {
  return column.schema === undefined ? `"${column.table}"` : `"${column.schema}"."${column.table}"`;
}

/**
 * The adapters' rule for a key table the probe does not find (the `missingTables` handler of `sqlStoredKeys`).
 * The ORM maps the table, so a table missing when the segment's first block is checked is a table not created
 * yet (migrations still to run): it counts as empty and is looked for again at every check. Once a block of the
 * segment was checked against the missing table, its keys may be handed out and written; if the table is still
 * missing when a LATER block (one above the first block checked against it) is checked, keys of the segment were
 * handed out and the rows went somewhere the probe does not look: another schema (a `search_path` on the
 * application's connections that hilo's connection lacks, a schema the ORM qualifies its statements with that
 * the adapter did not learn), another database. Counting that table as empty would turn the check off without a
 * word, so the block is refused with a `HiLoConfigurationError` (not retryable: every later block is refused too,
 * until the table is found), or, with `onMissingTable: 'warn'`, a `HILO_STORED_KEYS_UNCHECKED` process warning is
 * given once per table and the table still counts as empty.
 *
 * Why a later block: it is the first moment at which keys of the segment can have been handed out while the
 * table was missing, without false alarms for an application whose migrations run after hilo starts (their table
 * exists by the time the first block is used up). What it bounds: at most the keys of the blocks reserved while
 * the table was missing — one block per process, the first — are handed out unchecked; a table created by then
 * is checked from the next block on. (A reservation of several blocks at once, `reserve(segment, n)` above the
 * block size, counts its second block as a later one: refused early rather than late.)
 *
 * @example
 * ```ts
 * const storedKeys = sqlStoredKeys(client, columns, {
 *   missingTables: missingTableRule('error', { owner: 'hiloKysely()' }),
 * });
 * ```
 */
export function missingTableRule(
  onMissingTable: OnMissingTable,
  wording: MissingTableWording,
): (missing: MissingProbeTable) => void {
  /** Per table, the last key of the first block checked while it was missing, and whether it was warned of. */
  const seen = new Map<string, { firstBlockLast: bigint; warned: boolean }>();
  return ({ column, block }) => {
    if (block === undefined) return;
    const id = JSON.stringify([column.segment, column.schema ?? null, column.table]);
    const state = seen.get(id);
    if (state === undefined) {
      seen.set(id, { firstBlockLast: block.last, warned: false });
      return;
    }
    if (block.first <= state.firstBlockLast) return;
    const message = missingTableMessage(column, wording);
    if (onMissingTable === 'error') throw configurationErrors.storedKeysTableMissing(message);
    if (state.warned) return;
    state.warned = true;
    process.emitWarning(`hilo: ${message}`, { code: 'HILO_STORED_KEYS_UNCHECKED' });
  };
}

function missingTableMessage(column: StoredKeyColumn, wording: MissingTableWording): string {
  const where =
    column.schema === undefined
      ? `the default schema of hilo's connection (on PostgreSQL the first schema of its search_path, usually ` +
        `public; on MariaDB/MySQL the database of its URL)`
      : `schema "${column.schema}"`;
  return (
    `Segment "${column.segment}" stores its keys in ${column.table}.${column.column}, but hilo's connection finds ` +
    `no table ${tableName(column)}: it looked in ${where}. Keys of the segment were already handed out, so its ` +
    `rows are written where hilo does not look, and the check of each block against the stored keys (verified ` +
    `blocks) cannot run. Tell hilo the table's schema${wording.schemaOption === undefined ? '' : ` (${wording.schemaOption})`}, ` +
    `or give ${wording.owner} a connection that sees the application's tables (\`client\`, or a \`url\` whose ` +
    `search_path or database is the application's, e.g. ?options=-c%20search_path%3Dshop), or pass ` +
    `\`onMissingTable: 'warn'\` to go on without this check.`
  );
}
