import { HiLoConfigurationError, HiLoOverflowError } from './errors.js';
import type { HiLoGenerator } from './engine/generator.js';
import { GENERATOR_OPTION_NAMES, type HiLoGeneratorOptions } from './engine/options.js';
import { connect } from './operations/connect.js';
import { createHiLo, type CreateHiLoOptions } from './operations/create-hilo.js';
import { sqlStoredKeys } from './operations/stored-keys.js';
import { missingTableRule, type OnMissingTable } from './operations/probe-tables.js';
import {
  checkKeyGuardOption,
  sqliteDefaultKeyGuard,
  type DefaultKeyGuard,
  type InstallLine,
} from './operations/sqlite-guard-default.js';
import type { StoredKeyColumn, StoredKeys } from './engine/types.js';
import type { SqlClient } from './sql/sql-client.js';

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
}

/** The option names of {@link PassedGeneratorOptions}. */
export const PASSED_GENERATOR_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...[...GENERATOR_OPTION_NAMES].filter(
    (name) => name !== 'source' && name !== 'keyType' && name !== 'idFormat' && name !== 'storedKeys',
  ),
  'verifyBlocks',
  'onMissingTable',
]);

/**
 * The generator's `storedKeys` for an adapter (its `verifyBlocks` option): the tables and key columns of each
 * segment, read on `client`, or `undefined` when the user turned verification off with `verifyBlocks: false`.
 * `columns` may be a function, for adapters that learn their tables after start (Drizzle tables passed to
 * `warm()`): it is asked again at each check. Duplicates (single-table inheritance) are checked once. Give each
 * column the `schema` the ORM qualifies its statements with; a table the probe does not find follows
 * `missingTableRule` (`onMissingTable`): empty at its segment's first block, refused (or warned of) at a later one.
 *
 * @param owner - how the adapter is called in messages, e.g. `"installHiLo()"`.
 * @param wording - `schemaOption`: where the adapter's user sets a table's schema, for that message.
 * @throws HiLoConfigurationError for a `verifyBlocks` that is not a boolean, and for `onStoreBehind` with
 *   `verifyBlocks: false` (it would have no effect).
 * @example
 * ```ts
 * const storedKeys = adapterStoredKeys(client, options, [{ segment: 'orders', table: 'orders', column: 'id' }], 'installHiLo()');
 * ```
 */
export function adapterStoredKeys(
  client: SqlClient,
  options: { readonly verifyBlocks?: unknown; readonly onStoreBehind?: unknown; readonly onMissingTable?: unknown },
  columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]),
  owner: string,
  wording: { readonly schemaOption?: string | undefined } = {},
): StoredKeys | undefined {
  checkVerifyBlocks(options, owner);
  if (options.verifyBlocks === false) return undefined;
  // the tables come from the ORM's metadata: one not created yet is no typo, one still missing once keys of its
  // segment were handed out is a table hilo does not see (probe-tables.ts); one rule for every table list
  const missingTables = missingTableRule((options.onMissingTable as OnMissingTable | undefined) ?? 'error', {
    owner,
    schemaOption: wording.schemaOption,
  });
  if (typeof columns !== 'function') return sqlStoredKeys(client, uniqueColumns(columns), { missingTables });
  let known: { readonly signature: string; readonly keys: StoredKeys } | undefined;
  const current = (): StoredKeys => {
    const list = uniqueColumns(columns());
    const signature = JSON.stringify(list);
    if (known?.signature !== signature) known = { signature, keys: sqlStoredKeys(client, list, { missingTables }) };
    return known.keys;
  };
  return {
    largest: (segment, signal) => current().largest(segment, signal),
    within: (segment, block, signal) => current().within(segment, block, signal),
    ...(client.session === undefined ? {} : { session: <T>(work: () => Promise<T>) => client.session!(work) }),
  };
}

/**
 * Refuses a malformed `verifyBlocks`, and `onStoreBehind` next to `verifyBlocks: false`, for adapters that check
 * their options before they build the generator ({@link adapterStoredKeys} checks again).
 * @param owner - how the adapter is called in messages, e.g. `"withHiLo()"`.
 */
export function checkVerifyBlocks(
  options: { readonly verifyBlocks?: unknown; readonly onStoreBehind?: unknown; readonly onMissingTable?: unknown },
  owner: string,
): void {
  const { verifyBlocks, onStoreBehind, onMissingTable } = options;
  if (verifyBlocks !== undefined && typeof verifyBlocks !== 'boolean')
    throw HiLoConfigurationError.invalidOption('verifyBlocks', 'true or false', verifyBlocks);
  if (onMissingTable !== undefined && onMissingTable !== 'error' && onMissingTable !== 'warn')
    throw HiLoConfigurationError.invalidOption('onMissingTable', '"error" or "warn"', onMissingTable);
  if (verifyBlocks === false && onStoreBehind !== undefined) {
    throw new HiLoConfigurationError(
      `${owner} got \`onStoreBehind: ${JSON.stringify(onStoreBehind)}\` with \`verifyBlocks: false\`, but only a ` +
        `verified block can find the store behind; remove \`verifyBlocks: false\` (verifying is the default) or ` +
        `remove \`onStoreBehind\`.`,
    );
  }
}

function uniqueColumns(columns: readonly StoredKeyColumn[]): StoredKeyColumn[] {
  const seen = new Map<string, StoredKeyColumn>();
  for (const c of columns) seen.set(JSON.stringify([c.segment, c.schema ?? null, c.table, c.column]), c);
  return [...seen.values()];
}

/**
 * Where an adapter's keys come from — exactly one of `url`, `client` or `generator` — and, when hilo builds
 * the generator, how. Shared by the adapters so every one of them accepts the same options with the same
 * messages.
 */
export interface KeySupplyOptions extends PassedGeneratorOptions, HiSourceLayout {
  /**
   * Database URL for hilo's own connection (`postgres://…`, `mysql://…`, `mariadb://…`, `sqlite:PATH`).
   * Reservations run there and commit at once, never inside the application's transaction.
   */
  readonly url?: string;
  /** A `SqlClient` you own (`connect(url)`, `pgClient(pool)`, …); the supply leaves it open at `close()`. */
  readonly client?: SqlClient;
  /** A generator you created and own; the supply neither warms it on its own nor closes it. */
  readonly generator?: HiLoGenerator<number> | HiLoGenerator<bigint> | HiLoGenerator<number | bigint>;
  /**
   * SQLite only: install hilo's key guard on the tables whose keys hilo assigns, a `BEFORE INSERT` trigger
   * `<table>_hilo_key` that refuses a row inserted without a key with an error naming this adapter's install line.
   * Without it SQLite stores such a row (a forgotten install, raw SQL) with the next rowid as its key, a key hilo
   * hands out later. Installed when hilo connects, and for tables created later at the adapter's next `warm()` or
   * the next reservation (`warm()` only with `verifyBlocks: false`); a table already guarded (by another process,
   * or `hilo init --guard`) is left as it is. PostgreSQL and MariaDB/MySQL
   * refuse such a row on `NOT NULL` and are not touched (`hilo init --guard` guards them). `false` installs
   * nothing, and a guard already there stays (drop the trigger to remove it).
   * @default true
   */
  readonly keyGuard?: boolean;
}

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
 */
export function refuseLayoutInMemory(options: object, database: string, owner: string): void {
  const given = [...HI_SOURCE_LAYOUT_OPTION_NAMES].filter(
    (name) => (options as Record<string, unknown>)[name] !== undefined,
  );
  if (given.length === 0) return;
  throw new HiLoConfigurationError(
    `${database} is in memory (":memory:"), where hilo keeps the counter in this process and ignores ` +
      `${given.map((n) => `\`${n}\``).join(', ')}; ` +
      `remove those options from ${owner}, or use a database file so that a hi table can be shared ` +
      `(or pass \`client\` for a hi source elsewhere).`,
  );
}

/**
 * A generator an adapter draws keys from, with the life cycle settled: `close()` closes only what the
 * supply opened itself (the generator and connection it built from `url`, the generator it built on your
 * `client`), never what you passed in.
 */
export interface KeySupply {
  /** The generator; resolves once connected (the connection opens on first use, not at construction). */
  generator(): Promise<HiLoGenerator<number | bigint>>;
  /** The generator when it is already built, for synchronous paths; `undefined` before the first `generator()`. */
  readonly current: HiLoGenerator<number | bigint> | undefined;
  /**
   * Connects if needed, then installs SQLite's key guard (`keyGuard`) on the key columns that lack it, for tables
   * the adapter learnt or the database created since; nothing elsewhere, nor with `keyGuard: false`.
   */
  guard(): Promise<void>;
  /** Closes what the supply opened; later calls to `generator()` throw. Idempotent. */
  close(): Promise<void>;
}

/** A generator together with what was opened for it, closed as one. */
export interface OwnedGenerator<K extends number | bigint = number | bigint> {
  readonly generator: HiLoGenerator<K>;
  /** Closes the generator (returning unused keys while the connection is still open), then releases. */
  close(): Promise<void>;
}

/**
 * Builds a generator with `build` and ties `release` (closing a pool or connection the adapter opened for it)
 * to its life: released at once when `build` throws, else after the generator closes, even when that fails.
 * The one "close what we opened" of every adapter.
 */
export async function ownGenerator<K extends number | bigint>(
  build: () => HiLoGenerator<K>,
  release: () => unknown,
): Promise<OwnedGenerator<K>> {
  let generator: HiLoGenerator<K>;
  try {
    generator = build();
  } catch (error) {
    await release();
    throw error;
  }
  return {
    generator,
    async close() {
      try {
        await generator.close();
      } finally {
        await release();
      }
    },
  };
}

/** The option names of {@link KeySupplyOptions}. */
export const KEY_SUPPLY_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...PASSED_GENERATOR_OPTION_NAMES,
  'source',
  'url',
  'client',
  'generator',
  'keyGuard',
  ...HI_SOURCE_LAYOUT_OPTION_NAMES,
]);

/** How an adapter words {@link openKeySupply}'s messages, when `owner` alone does not say enough. */
export interface KeySupplyWording {
  /** A call that works, shown when none or several of `url`, `client`, `generator` were given. */
  readonly example?: string;
  /** The message of `generator()` after `close()`. */
  readonly closed?: string;
  /** Where the adapter's user sets a table's schema, for the message about a missing key table. */
  readonly schemaOption?: string;
  /**
   * What SQLite's key guard (`keyGuard`) names as the fix, per segment, at most 60 characters, e.g.
   * `new Kysely({ dialect, plugins: [hilo.plugin] })`.
   * @default every adapter's install line
   */
  readonly installLine?: InstallLine;
  /**
   * The key columns SQLite's key guard protects, asked at each check, when the adapter knows more of them than
   * verified blocks probe (Drizzle: a table passed to `warm()` whose key column lacks hilo's `$defaultFn`).
   * @default the `columns` of {@link openKeySupply}
   */
  readonly keyGuardColumns?: () => readonly StoredKeyColumn[];
}

/**
 * Validates the connection options and returns a key supply; nothing connects before the first
 * `generator()`. A failed connection attempt is not remembered: the next call tries again.
 *
 * @param owner - how the adapter is called in messages, e.g. `"hiloDrizzle()"`.
 * @param columns - the tables and key columns of each segment, for verified blocks (see
 *   {@link adapterStoredKeys}); unused with `verifyBlocks: false` or a `generator` passed in.
 * @example
 * ```ts
 * const supply = openKeySupply({ url: process.env.DATABASE_URL, blockSize: 100 }, 'hiloKysely()');
 * const key = await (await supply.generator()).next('orders');
 * ```
 */
export function openKeySupply(
  options: KeySupplyOptions,
  owner: string,
  wording: KeySupplyWording = {},
  columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]) = [],
): KeySupply {
  if (options === null || typeof options !== 'object')
    throw HiLoConfigurationError.invalidOption('options', 'an object', options);
  HiLoConfigurationError.checkOptionNames(options, KEY_SUPPLY_OPTION_NAMES, owner);
  const {
    url,
    client,
    generator,
    source,
    table,
    schema,
    strategy,
    create,
    verifyBlocks,
    onMissingTable: _onMissingTable,
    keyGuard: keyGuardOption,
    ...generatorOptions
  } = options;
  checkVerifyBlocks(options, owner);
  const keyGuard = checkKeyGuardOption(keyGuardOption);
  const given = [url, client, generator].filter((v) => v !== undefined).length;
  if (given !== 1) {
    throw new HiLoConfigurationError(
      `${owner} needs exactly one of \`url\`, \`client\` or \`generator\`, got ${given}; pass the ` +
        `database URL, e.g. ${wording.example ?? '{ url: process.env.DATABASE_URL }'}.`,
    );
  }
  if (url !== undefined && typeof url !== 'string')
    throw HiLoConfigurationError.invalidOption('url', 'a database URL string', url);
  if (client !== undefined && typeof (client as { query?: unknown }).query !== 'function') {
    throw HiLoConfigurationError.invalidOption('client', 'a SqlClient (connect(url), pgClient(pool), …)', client);
  }
  if (generator !== undefined && typeof (generator as { reserve?: unknown }).reserve !== 'function') {
    throw HiLoConfigurationError.invalidOption('generator', 'a HiLoGenerator (createHiLoGenerator(...))', generator);
  }
  if (source !== undefined && source !== 'sequence' && source !== 'table') {
    throw HiLoConfigurationError.invalidOption('source', '"sequence" or "table"', source);
  }
  if (generator !== undefined && (verifyBlocks !== undefined || options.onStoreBehind !== undefined)) {
    throw new HiLoConfigurationError(
      `${owner} got \`generator\` and \`${verifyBlocks === undefined ? 'onStoreBehind' : 'verifyBlocks'}\`, but a ` +
        `generator you pass in is used as you built it; give \`storedKeys\` and \`onStoreBehind\` to ` +
        `createHiLo()/createHiLoGenerator() instead, or pass \`url\` or \`client\` so that hilo builds it.`,
    );
  }
  if (generator !== undefined && keyGuardOption !== undefined) {
    throw new HiLoConfigurationError(
      `${owner} got \`generator\` and \`keyGuard\`, but with a generator you pass in hilo has no connection to ` +
        `install the guard on; install it with ensureKeyGuard(client, targets) from hilo-core (or \`hilo init ` +
        `--guard\`), or pass \`url\` or \`client\` instead of \`generator\`.`,
    );
  }

  type Built = OwnedGenerator;
  let guard: DefaultKeyGuard | undefined;
  const build = async (): Promise<Built> => {
    if (generator !== undefined) return { generator, close: async () => {} };
    // a pool stuck on a link that drops packets is given up after closeTimeoutMs too
    const sql =
      client ??
      (await connect(
        url!,
        generatorOptions.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: generatorOptions.closeTimeoutMs },
      ));
    // SQLite stores a key-less row with a rowid hilo hands out later: guard the tables (sqlite-guard-default.ts)
    guard = keyGuard
      ? sqliteDefaultKeyGuard(
          sql,
          wording.keyGuardColumns ?? (typeof columns === 'function' ? columns : () => columns),
          wording.installLine,
        )
      : undefined;
    try {
      await guard?.ensure();
    } catch (error) {
      if (client === undefined) await sql.close();
      throw error;
    }
    const verified = adapterStoredKeys(sql, options, columns, owner, { schemaOption: wording.schemaOption });
    const storedKeys = guard === undefined ? verified : guard.around(verified);
    const build = () =>
      createHiLo<'bigint'>({
        ...generatorOptions,
        ...(storedKeys === undefined ? {} : { storedKeys }),
        client: sql,
        keyType: 'bigint',
        source,
        table,
        schema,
        strategy,
        create,
      });
    return ownGenerator<number | bigint>(build, () => (client === undefined ? sql.close() : undefined));
  };

  let building: Promise<Built> | undefined;
  let built: Built | undefined;
  let closed = false;
  return {
    generator() {
      if (closed)
        return Promise.reject(
          new HiLoConfigurationError(wording.closed ?? `${owner} was closed; create a new one to get more keys.`),
        );
      if (building === undefined) {
        building = build().then(
          (b) => (built = b),
          (error: unknown) => {
            building = undefined;
            throw error;
          },
        );
      }
      return building.then((b) => b.generator);
    },
    get current() {
      return closed ? undefined : built?.generator;
    },
    async guard() {
      await this.generator();
      await guard?.ensure();
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = building;
      built = undefined;
      if (pending !== undefined) await (await pending.catch(() => undefined))?.close();
    },
  };
}

/** How a key is stored in a field: a JavaScript number, a bigint, or a decimal string. */
export type KeyField = 'number' | 'bigint' | 'string';

/** What a key field holds beyond its JavaScript type, and how the adapter tells its user to widen it. */
export interface KeyFieldLimits {
  /** The largest key the column holds (an int column: 2^31 − 1); a larger key is refused. */
  readonly maxKey?: bigint;
  /** The column for messages, e.g. `"an Int"` or `"an int column"`. */
  readonly column?: string;
  /** How to make the column hold larger keys, in the adapter's terms, e.g. `"make the field BigInt"`. */
  readonly widen?: string;
  /** How to declare the field as a bigint, in the adapter's terms, e.g. `"declare it with keyType: 'bigint'"`. */
  readonly asBigint?: string;
}

/**
 * A key as the field wants it. Refuses, with {@link HiLoOverflowError}, a key above the column's `maxKey`
 * (the database would reject or wrap it) and a key beyond `Number.MAX_SAFE_INTEGER` for a `number` field
 * (DESIGN rule 4: a rounded key would collide). The one conversion every adapter uses.
 *
 * @param where - names the field in the message, e.g. `"orders.id"`.
 */
export function keyToField(
  key: number | bigint,
  as: KeyField,
  where: string,
  limits: KeyFieldLimits = {},
): number | bigint | string {
  // number and bigint compare exactly in JavaScript: no conversion on the hot path
  if (limits.maxKey !== undefined && key > limits.maxKey) {
    throw new HiLoOverflowError(
      `Key ${key} does not fit ${where}${limits.column === undefined ? '' : `, ${limits.column}`} ` +
        `(at most ${limits.maxKey}); ${limits.widen ?? 'use a bigint column'}.`,
    );
  }
  switch (as) {
    case 'bigint':
      return BigInt(key);
    case 'string':
      return String(key);
    case 'number': {
      if (typeof key === 'number') return key;
      if (key > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new HiLoOverflowError(
          `Key ${key} for ${where} is beyond Number.MAX_SAFE_INTEGER and cannot be held as a number; ` +
            `${limits.asBigint ?? `declare ${where} as a bigint field (mode: 'bigint')`}.`,
        );
      }
      return Number(key);
    }
    default:
      throw HiLoConfigurationError.invalidOption('keyType', '"number", "bigint" or "string"', as);
  }
}

/** The largest value a signed SQL `bigint` (PostgreSQL `int8`, MySQL/MariaDB `BIGINT`) holds: 2^63 − 1. */
export const BIGINT_MAX = 9_223_372_036_854_775_807n;

/** Signed SQL integer column types by the names databases and ORMs use, and the largest value each holds. */
const INTEGER_COLUMN_MAXIMA: Readonly<Record<string, bigint>> = {
  tinyint: 127n,
  smallint: 32_767n,
  int2: 32_767n,
  mediumint: 8_388_607n,
  int: 2_147_483_647n,
  integer: 2_147_483_647n,
  int4: 2_147_483_647n,
  bigint: BIGINT_MAX,
  int8: BIGINT_MAX,
};

/**
 * The largest key a column of SQL type `type` holds (`int` → 2,147,483,647), or `undefined` when `type` is
 * not a signed integer type. Case and a display width (`int(11)`) are ignored. The one table behind every
 * adapter's column limits and the CLI's `--max-key int`.
 * @example
 * ```ts
 * columnTypeMaxKey('INT(11)') // 2147483647n
 * ```
 */
export function columnTypeMaxKey(type: string): bigint | undefined {
  const name = type.toLowerCase().replace(/\(.*$/, '').trim();
  return Object.hasOwn(INTEGER_COLUMN_MAXIMA, name) ? INTEGER_COLUMN_MAXIMA[name] : undefined;
}

/** One key column an adapter found: its segment, the block size it declares, and the largest key it holds. */
export interface KeyColumnLimit {
  readonly segment: string;
  readonly blockSize?: number | undefined;
  readonly maxKey: bigint;
  /** Where the column's `blockSize` was declared (`Entity.property`), for the error when two disagree. */
  readonly where?: string;
}

/** Per-segment generator options, as {@link segmentsForColumns} builds them. */
export type SegmentLimits = Record<string, { blockSize?: number; maxBlockSize?: number; maxKey?: number | bigint }>;

/**
 * The generator's `segments` option for an adapter's key columns: each segment takes the block size a column
 * declares and stops at what its narrowest column holds, lowered further by the `maxKey` the user set (for
 * the segment, or for all), so the headroom warning fires at 90 % of what the column can store. A malformed
 * user `maxKey` is left alone for the generator to refuse by name.
 * @throws HiLoConfigurationError when two columns of one segment declare different block sizes.
 */
export function segmentsForColumns(
  columns: Iterable<KeyColumnLimit>,
  user: { readonly maxKey?: unknown; readonly segments?: SegmentLimits | undefined } = {},
): SegmentLimits {
  const result: SegmentLimits = { ...user.segments };
  const seen = new Set<string>();
  const declared = new Map<string, { blockSize: number; where: string | undefined }>();
  for (const column of columns) {
    const previous = seen.has(column.segment) ? result[column.segment] : undefined;
    seen.add(column.segment);
    const other = declared.get(column.segment);
    if (column.blockSize !== undefined && other !== undefined && other.blockSize !== column.blockSize) {
      throw new HiLoConfigurationError(
        `Segment "${column.segment}" gets blockSize ${other.blockSize} from ${other.where ?? 'one key column'} ` +
          `and ${column.blockSize} from ${column.where ?? 'another'}; give them the same blockSize or ` +
          `different segments.`,
      );
    }
    if (column.blockSize !== undefined && other === undefined)
      declared.set(column.segment, { blockSize: column.blockSize, where: column.where });
    const given = user.segments?.[column.segment]?.maxKey ?? user.maxKey;
    const usable =
      (typeof given === 'bigint' && given >= 1n) ||
      (typeof given === 'number' && Number.isSafeInteger(given) && given >= 1);
    let maxKey = usable && BigInt(given) < column.maxKey ? BigInt(given) : column.maxKey;
    if (previous?.maxKey !== undefined && BigInt(previous.maxKey) < maxKey) maxKey = BigInt(previous.maxKey);
    const blockSize = column.blockSize ?? previous?.blockSize ?? user.segments?.[column.segment]?.blockSize;
    result[column.segment] = {
      ...user.segments?.[column.segment],
      ...(blockSize === undefined ? {} : { blockSize }),
      maxKey,
    };
  }
  return result;
}

/**
 * The segment of a table when the application names none: the table's own name, unqualified
 * (`shop.orders` → `orders`), so every adapter and the `hilo` command agree on it.
 */
export function segmentOfTable(table: string): string {
  if (typeof table !== 'string' || table.trim() === '')
    throw HiLoConfigurationError.invalidOption('table', 'a table name', table);
  const dot = table.lastIndexOf('.');
  return dot === -1 ? table : table.slice(dot + 1);
}

/**
 * A mark an adapter keeps on objects it does not own (an ORM's entities), made by {@link objectMark}.
 */
export interface ObjectMark<T> {
  /**
   * Marks `object` with `value`; `undefined` clears the mark. Returns `false` when the object refuses a new
   * field (engines may refuse non-extensible objects): it then stays unmarked, and the adapter must treat
   * an unmarked object the safe way.
   */
  set(object: object, value: T | undefined): boolean;
  /** The value `object` is marked with, or `undefined`. */
  get(object: object): T | undefined;
}

/**
 * A new, independent mark for objects. It is a private field stamped onto the object (a base constructor
 * that returns its argument lets a subclass add its private fields to any object), so nothing else sees it:
 * not `Object.keys`, symbols, spread, `JSON.stringify`, `structuredClone` or test matchers, and a copy of
 * the object is never marked. Setting it costs about a tenth of a `WeakMap` entry (whose ephemeron table
 * also weighs on every garbage collection), and the mark goes away with the object.
 * @example
 * ```ts
 * const fresh = objectMark<bigint>();
 * fresh.set(entity, key);
 * if (fresh.get(entity) === key) { … }
 * ```
 */
export function objectMark<T>(): ObjectMark<T> {
  class Stamp {
    constructor(target: object) {
      return target;
    }
  }
  class Marked extends Stamp {
    #value: T | undefined;
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }
    static set(object: object, value: T | undefined): boolean {
      if (#value in object) object.#value = value;
      else if (value !== undefined) {
        try {
          new Marked(object, value);
        } catch {
          return false;
        }
      }
      return true;
    }
    static get(object: object): T | undefined {
      return #value in object ? object.#value : undefined;
    }
  }
  return { set: Marked.set, get: Marked.get };
}
