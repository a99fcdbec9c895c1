// Verified blocks for adapters: the generator's `storedKeys` built from the tables and key columns an ORM maps,
// and the check of the options that turn it off or tune it.
import { HiLoConfigurationError } from '../errors.js';
import type { StoredKeyColumn, StoredKeys } from '../engine/types.js';
import { sqlStoredKeys, type OnUnreadableKeys } from '../operations/stored-keys.js';
import { missingTableRule, type OnMissingTable } from '../operations/probe-tables.js';
import type { SqlClient } from '../sql/sql-client.js';
import { configurationErrors } from '../error-messages.js';

/**
 * The generator's `storedKeys` for an adapter (its `verifyBlocks` option): the tables and key columns of each
 * segment, read on `client`, or `undefined` when the user turned verification off with `verifyBlocks: false`.
 * `columns` may be a function, for adapters that learn their tables after start (Drizzle tables passed to
 * `warm()`): it is asked again at each check. Duplicates (single-table inheritance) are checked once. Give each
 * column the `schema` the ORM qualifies its statements with; a table the probe does not find follows
 * `missingTableRule` (`onMissingTable`): empty at its segment's first block, refused (or warned of) at a later one.
 * With `store` (where the hi store lives), a store shared by tenants that checks only some of them is refused at
 * each segment's first check (see `sqlStoredKeys`'s `store`).
 *
 * @param owner - how the adapter is called in messages, e.g. `"installHiLo()"`.
 * @param wording - `schemaOption`: where the adapter's user sets a table's schema, for that message.
 * @param store - `schema`: the schema (database) the hi store lives in, absent for the connection's; leave the
 *   argument out for a store hilo does not own (a source function of the user's).
 * @throws HiLoConfigurationError for a `verifyBlocks` that is not a boolean, and for `onStoreBehind` with
 *   `verifyBlocks: false` (it would have no effect).
 * @example
 * ```ts
 * const storedKeys = adapterStoredKeys(client, options, [{ segment: 'orders', table: 'orders', column: 'id' }], 'installHiLo()');
 * ```
 */
export function adapterStoredKeys(
  client: SqlClient,
  options: AdapterVerifyOptions,
  columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]),
  owner: string,
  wording: { readonly schemaOption?: string | undefined } = {},
  store?: { readonly schema?: string | undefined },
): StoredKeys | undefined {
  checkVerifyBlocks(options, owner);
  if (options.verifyBlocks === false) return undefined;
  // the tables come from the ORM's metadata: one not created yet is no typo, one still missing once keys of its
  // segment were handed out is a table hilo does not see (probe-tables.ts); one rule for every table list
  const missingTables = missingTableRule((options.onMissingTable as OnMissingTable | undefined) ?? 'error', {
    owner,
    schemaOption: wording.schemaOption,
  });
  const onUnreadableKeys = options.onUnreadableKeys as OnUnreadableKeys | undefined;
  const settings = { missingTables, onUnreadableKeys, store };
  if (typeof columns !== 'function') return sqlStoredKeys(client, uniqueColumns(columns), settings);
  let known: { readonly signature: string; readonly list: StoredKeyColumn[]; readonly keys: StoredKeys } | undefined;
  /** Columns learnt after the first check (a tenant's table passed to `warm()` later), not yet probed over the keys in hand. */
  let learnt: StoredKeyColumn[] = [];
  const current = (): StoredKeys => {
    const list = uniqueColumns(columns());
    const signature = JSON.stringify(list);
    if (known?.signature !== signature) {
      if (known !== undefined) {
        const before = new Set(known.list.map((c) => JSON.stringify(c)));
        learnt.push(...list.filter((c) => !before.has(JSON.stringify(c))));
      }
      known = { signature, list, keys: sqlStoredKeys(client, list, settings) };
    }
    return known.keys;
  };
  /** See `StoredKeys.recheck`: tenants found in the catalog since, and tables learnt since, over the keys in hand. */
  const recheck: NonNullable<StoredKeys['recheck']> = async (segment, blocks, signal) => {
    let found = await current().recheck?.(segment, blocks, signal);
    const fresh = learnt.filter((c) => c.segment === segment);
    if (fresh.length === 0) return found;
    learnt = learnt.filter((c) => c.segment !== segment);
    // the new tables alone; one still missing holds no keys (the next block's check applies `onMissingTable`)
    const probe = sqlStoredKeys(client, fresh, { ...settings, missingTables: 'ignore', store: undefined });
    try {
      for (const block of blocks) {
        const stored = await probe.within(segment, block, signal);
        if (stored !== undefined && (found === undefined || stored.key > found.stored.key)) found = { stored, block };
      }
    } catch (error) {
      // not probed: they are probed at the next check instead
      learnt.push(...fresh);
      throw error;
    }
    return found;
  };
  return {
    columns: (segment) => current().columns?.(segment) ?? [],
    largest: (segment, signal) => current().largest(segment, signal),
    within: (segment, block, signal) => current().within(segment, block, signal),
    formatted: (segment, prefix) => current().formatted?.(segment, prefix),
    recheck,
    ...(client.session === undefined ? {} : { session: <T>(work: () => Promise<T>) => client.session!(work) }),
  };
}

/**
 * Refuses a malformed `verifyBlocks`, and `onStoreBehind` next to `verifyBlocks: false`, for adapters that check
 * their options before they build the generator ({@link adapterStoredKeys} checks again).
 * @param owner - how the adapter is called in messages, e.g. `"withHiLo()"`.
 * @throws HiLoConfigurationError naming the option and the fix.
 * @example
 * ```ts
 * checkVerifyBlocks({ verifyBlocks: false, onStoreBehind: 'lift' }, 'withHiLo()'); // throws
 * ```
 */
export function checkVerifyBlocks(options: AdapterVerifyOptions, owner: string): void {
  const { verifyBlocks, onStoreBehind, onMissingTable, onUnreadableKeys } = options;
  if (verifyBlocks !== undefined && typeof verifyBlocks !== 'boolean')
    throw HiLoConfigurationError.invalidOption('verifyBlocks', 'true or false', verifyBlocks);
  if (onMissingTable !== undefined && onMissingTable !== 'error' && onMissingTable !== 'warn')
    throw HiLoConfigurationError.invalidOption('onMissingTable', '"error" or "warn"', onMissingTable);
  if (onUnreadableKeys !== undefined && onUnreadableKeys !== 'error' && onUnreadableKeys !== 'warn')
    throw HiLoConfigurationError.invalidOption('onUnreadableKeys', '"error" or "warn"', onUnreadableKeys);
  if (verifyBlocks === false && onStoreBehind !== undefined) {
    throw configurationErrors.onStoreBehindWithoutVerify(owner, onStoreBehind);
  }
}

/**
 * The adapter options {@link adapterStoredKeys} and {@link checkVerifyBlocks} read, as the user gave them (checked
 * there; see `PassedGeneratorOptions` for their meaning).
 */
export interface AdapterVerifyOptions {
  /** `true` (the default) or `false`. */
  readonly verifyBlocks?: unknown;
  /** `'error'` or `'lift'`; refused with `verifyBlocks: false`. */
  readonly onStoreBehind?: unknown;
  /** `'error'` (the default) or `'warn'`. */
  readonly onMissingTable?: unknown;
  /** `'error'` (the default) or `'warn'`. */
  readonly onUnreadableKeys?: unknown;
}

function uniqueColumns(columns: readonly StoredKeyColumn[]): StoredKeyColumn[] {
  const seen = new Map<string, StoredKeyColumn>();
  for (const c of columns)
    seen.set(JSON.stringify([c.segment, c.schema ?? null, c.tenants ?? null, c.table, c.column]), c);
  return [...seen.values()];
}
