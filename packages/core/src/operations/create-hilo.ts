import { HiLoConfigurationError } from '../errors.js';
import { createHiLoGenerator, type HiLoGenerator } from '../engine/generator.js';
import { GENERATOR_OPTION_NAMES, type HiLoGeneratorOptions } from '../engine/options.js';
import type { KeyOf, KeyType, StoredKeyColumn, StoredKeys } from '../engine/types.js';
import { sqlStoredKeys, type OnUnreadableKeys } from './stored-keys.js';
import { recordColumns } from './column-registry.js';
import type { SequenceStrategy } from '../sources/sequence-source.js';
import type { SqlClient } from '../sql/sql-client.js';
import { defaultSourceKind, sequenceSource, tableSource, type SqlSourceKind } from './sources.js';
import type { TableStrategy } from '../sources/table-source.js';
import { DIALECTS } from '../dialects/index.js';
import { configurationErrors } from '../error-messages.js';

/**
 * Options of {@link createHiLo}: where keys come from, plus every generator option except `source`. An option
 * set to `undefined` means its default, so an adapter passes its user's options through as they are.
 */
export interface CreateHiLoOptions<K extends KeyType = 'number'> extends Omit<
  HiLoGeneratorOptions<K>,
  'source' | 'storedKeys'
> {
  /** The database connection (`connect(url)`, `pgClient(pool)`, or an ORM adapter's client). */
  readonly client: SqlClient;
  /**
   * A sequence per segment (PostgreSQL, MariaDB) or a row per segment in a hi table.
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind | undefined;
  /**
   * The hi table of `source: 'table'`.
   * @default 'hilo_segments'
   */
  readonly table?: string | undefined;
  /** Schema (PostgreSQL) or database (MySQL) of the table or sequences. */
  readonly schema?: string | undefined;
  /**
   * What the stored value means, to share sequences or a hi table with other tools: `'pooled-lo'` (the first
   * key of the next block), `'pooled'` (sequences: the last key of a block), `'hilo'` (hi × block size),
   * `'range'` (tables: the highest key handed out). See the core README's strategy table.
   * @default 'pooled-lo'
   */
  readonly strategy?: SequenceStrategy | TableStrategy | undefined;
  /**
   * Whether missing sequences, table and rows are created on first use; `false` expects `hilo init` to have
   * created them and fails with a message saying so.
   * @default true
   */
  readonly create?: boolean | undefined;
  /**
   * The tables and key columns each segment's keys are stored in: every block is then checked against them
   * before its first key is handed out, and a store found behind them is `HiLoStoreBehindError` (or lifted,
   * with `onStoreBehind: 'lift'`); with `create`, a missing sequence or hi row is created above the largest
   * stored key. See "Verified blocks" in the README. A `StoredKeys` object (e.g. from `sqlStoredKeys()`) is
   * taken as it is.
   * @default none (blocks are not checked)
   * @example
   * ```ts
   * createHiLo({ client, storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }] });
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[] | StoredKeys | undefined;
  /**
   * With `storedKeys` as a list of columns: what a text column does when it holds rows and none of them reads as
   * a key of its `kind` (`sqlStoredKeys`' option of that name): `'error'` refuses with `HiLoConfigurationError`
   * naming the column, the kind and the fix; `'warn'` goes on with one `HILO_STORED_KEYS_UNREADABLE` warning.
   * @default 'error'
   * @example
   * ```ts
   * createHiLo({ client, storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }], onUnreadableKeys: 'warn' });
   * ```
   */
  readonly onUnreadableKeys?: OnUnreadableKeys | undefined;
  /**
   * PostgreSQL: reservations count only once a synchronous standby has them, so a standby promoted after a
   * failover never hands out a key handed out before; the server must have a synchronous standby
   * (`HiLoSynchronousStandbyError` otherwise). Costs the standby's round trip per reservation, never per key.
   * See "Failover" in the README.
   * @default false
   * @example
   * ```ts
   * createHiLo({ client, synchronousStandby: true });
   * ```
   */
  readonly synchronousStandby?: boolean | undefined;
}

/** The option names of {@link CreateHiLoOptions}. */
export const CREATE_HILO_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...GENERATOR_OPTION_NAMES,
  'client',
  'table',
  'schema',
  'strategy',
  'create',
  'synchronousStandby',
  'onUnreadableKeys',
]);

/**
 * A generator over a SQL hi source in one call: a sequence per segment on PostgreSQL (INCREMENT BY =
 * `blockSize`), a `hilo_segments` table elsewhere.
 *
 * @example
 * ```ts
 * const hilo = createHiLo({ client: await connect(process.env.DATABASE_URL!), blockSize: 100 });
 * const id = await hilo.next('orders');
 * ```
 */
export function createHiLo<K extends KeyType = 'number'>(options: CreateHiLoOptions<K>): HiLoGenerator<KeyOf<K>> {
  if (typeof options !== 'object' || options === null) {
    throw HiLoConfigurationError.invalidOption('createHiLo() options', 'an object with at least `client`', options);
  }
  HiLoConfigurationError.checkOptionNames(options, CREATE_HILO_OPTION_NAMES, 'createHiLo()');
  const given = options.client as Partial<SqlClient> | undefined;
  if (typeof given !== 'object' || given === null || typeof given.dialect !== 'string') {
    throw HiLoConfigurationError.invalidOption(
      'client',
      'a SqlClient: `await connect(url)`, pgClient(pool), mysqlClient(pool) or sqliteClient(db)',
      given,
    );
  }
  const {
    client,
    source: kind = defaultSourceKind(options.client),
    table,
    schema,
    strategy,
    create,
    storedKeys: stored,
    onUnreadableKeys,
    synchronousStandby,
    ...generatorOptions
  } = options;
  const storedKeys: StoredKeys | undefined =
    stored === undefined
      ? undefined
      : isColumnList(stored)
        ? // the store and the tables it checks must cover the same tenants (DESIGN rule 10)
          sqlStoredKeys(client, stored, { idFormat: options.idFormat, onUnreadableKeys, store: { schema } })
        : stored;
  // an option the chosen source would ignore is refused, so nobody believes it is in effect
  if (kind === 'sequence' && table !== undefined) {
    throw configurationErrors.tableOptionOnSequence(
      table,
      options.source === undefined ? DIALECTS[client.dialect].displayName : undefined,
    );
  }
  const common = {
    ...(schema === undefined ? {} : { schema }),
    ...(create === undefined ? {} : { create }),
    ...(synchronousStandby === undefined ? {} : { synchronousStandby }),
    // a sequence or row created now starts above the rows, not at 1: creating it is not the store falling behind
    ...(storedKeys === undefined || create === false
      ? {}
      : {
          createAbove: async (segment: string) =>
            (await storedKeys.largest(segment, new AbortController().signal))?.key,
        }),
  };
  const source =
    kind === 'sequence'
      ? sequenceSource(client, {
          increment: generatorOptions.blockSize ?? 100,
          incrementOption: 'blockSize',
          ...common,
          ...(strategy === undefined ? {} : { strategy: strategy as SequenceStrategy }),
        })
      : tableSource(client, {
          ...common,
          ...(table === undefined ? {} : { table }),
          ...(strategy === undefined ? {} : { strategy: strategy as TableStrategy }),
          // the table `hilo` strategy's max_lo is the block size: ignoring it (1000) overlapped a shared hi table (issue 17)
          ...(strategy === 'hilo' && generatorOptions.blockSize !== undefined
            ? { increment: generatorOptions.blockSize, incrementOption: 'blockSize' }
            : {}),
        });
  // one column, one segment across processes and deploys: the store records the columns each segment keys
  const recorded = recordColumns(client, source, storedKeys, schema);
  return createHiLoGenerator<K>({
    ...generatorOptions,
    source: recorded,
    ...(storedKeys === undefined ? {} : { storedKeys }),
  } as HiLoGeneratorOptions<K>);
}

function isColumnList(value: readonly StoredKeyColumn[] | StoredKeys): value is readonly StoredKeyColumn[] {
  return Array.isArray(value);
}
