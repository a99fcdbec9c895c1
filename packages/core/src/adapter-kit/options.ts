// The options every adapter passes through to the generator and the hi source as its user gave them, with
// their names (for each adapter's unknown-option check) and the refusal of a layout a `:memory:` database lacks.
import { GENERATOR_OPTION_NAMES, type HiLoGeneratorOptions } from '../engine/options.js';
import type { CreateHiLoOptions } from '../operations/create-hilo.js';
import type { OnMissingTable } from '../operations/probe-tables.js';
import type { OnUnreadableKeys } from '../operations/stored-keys.js';
import { configurationErrors } from '../error-messages.js';

/**
 * The `createHiLoGenerator` options an adapter passes through as the user gave them: all but those the adapter
 * decides itself (`source`, `keyType`, `idFormat`, and `storedKeys`, which it derives from the ORM's
 * mapping), plus `verifyBlocks`. Shared, so every adapter offers the same tuning.
 */
export interface PassedGeneratorOptions extends Omit<
  HiLoGeneratorOptions<'bigint'>,
  'source' | 'keyType' | 'idFormat' | 'storedKeys'
> {
  /**
   * Check every block against the keys already stored in the tables of its segment before its first key is
   * handed out, and, at a segment's first reservation, that the hi store is above the largest stored key (see
   * "Verified blocks" in hilo-core's README). The adapter knows the tables and key columns from the ORM's
   * mapping. A store found behind the rows (a restore, a sequence reset, a hi row deleted, a peer set up
   * differently) is `HiLoStoreBehindError`, naming the `hilo floor` command that fixes it, or is lifted with
   * `onStoreBehind: 'lift'`. Costs one indexed probe per table per reservation, none per key.
   * @default true
   * @example
   * ```ts
   * { verifyBlocks: true, onStoreBehind: 'lift' }
   * ```
   */
  verifyBlocks?: boolean;
  /**
   * What happens when a table the ORM maps is still missing where hilo's probe looks after keys of its segment
   * were handed out (a block reserved after the first one checked against the missing table): the rows went to a
   * table hilo does not see (another schema or search_path, another database), so the check would be off.
   * `'error'` refuses the block with `HiLoConfigurationError` naming the table, the schema looked in and the
   * options that fix it; `'warn'` goes on unchecked for that table, with a `HILO_STORED_KEYS_UNCHECKED` process
   * warning. A table missing at the segment's first block is one not created yet: it counts as empty and is
   * looked for again at every block.
   * @default 'error'
   * @example
   * ```ts
   * { onMissingTable: 'warn' }
   * ```
   */
  onMissingTable?: OnMissingTable;
  /**
   * What happens when a text key column holds rows and none of them reads as a key the way the adapter writes
   * them (decimal digits): `'error'` refuses the check with `HiLoConfigurationError` naming the column and the
   * fix, since a check that can read no row would pass in silence; `'warn'` goes on, with one
   * `HILO_STORED_KEYS_UNREADABLE` process warning, for a column whose old rows (UUIDs, codes) were written by
   * something else and can never equal a key hilo writes.
   * @default 'error'
   * @example
   * ```ts
   * { onUnreadableKeys: 'warn' }
   * ```
   */
  onUnreadableKeys?: OnUnreadableKeys;
}

/** The option names of {@link PassedGeneratorOptions}. */
export const PASSED_GENERATOR_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...[...GENERATOR_OPTION_NAMES].filter(
    (name) => name !== 'source' && name !== 'keyType' && name !== 'idFormat' && name !== 'storedKeys',
  ),
  'verifyBlocks',
  'onMissingTable',
  'onUnreadableKeys',
]);

/**
 * Where and how an adapter's SQL hi source keeps its blocks — `source`, `table`, `schema`, `strategy`,
 * `create` — documented once in {@link CreateHiLoOptions} and passed to `createHiLo` as the user gave them,
 * so every adapter offers the same options with the same meaning.
 */
export type HiSourceLayout = Pick<
  CreateHiLoOptions<'bigint'>,
  'source' | 'table' | 'schema' | 'strategy' | 'create' | 'synchronousStandby'
>;

/** The option names of {@link HiSourceLayout}. */
export const HI_SOURCE_LAYOUT_OPTION_NAMES: ReadonlySet<string> = new Set([
  'source',
  'table',
  'schema',
  'strategy',
  'create',
  'synchronousStandby',
]);

/**
 * Refuses the {@link HiSourceLayout} options set in `options` for an in-memory database, where an adapter
 * keeps the counter in this process (see `privateDatabaseSource`) and no hi table or sequence exists to lay
 * out: a user who set one would otherwise believe it in effect.
 *
 * @param database - the database in the adapter's words, e.g. `"The better-sqlite3 DataSource"`.
 * @param owner - where the options were given, e.g. `"installHiLo()"`.
 * @throws HiLoConfigurationError naming the layout options that were set.
 * @example
 * ```ts
 * refuseLayoutInMemory({ table: 'hilo' }, 'The better-sqlite3 DataSource', 'installHiLo()'); // throws
 * ```
 */
export function refuseLayoutInMemory(options: object, database: string, owner: string): void {
  const given = [...HI_SOURCE_LAYOUT_OPTION_NAMES].filter(
    (name) => (options as Record<string, unknown>)[name] !== undefined,
  );
  if (given.length === 0) return;
  throw configurationErrors.layoutInMemory(database, given, owner);
}
