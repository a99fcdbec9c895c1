// The one way every adapter opens its key supply: which of `url`, `client`, `generator` (or the adapter's own
// connection) the keys come from, the generator built on it, SQLite's key guard, and closing only what was opened.
import { HiLoConfigurationError } from '../errors.js';
import { createHiLoGenerator, type HiLoGenerator } from '../engine/generator.js';
import type { HiLoGeneratorOptions } from '../engine/options.js';
import type { HiSource, KeyType, StoredKeyColumn } from '../engine/types.js';
import { privateDatabaseSource, type PrivateDatabaseQuery } from '../dialects/sqlite/private-source.js';
import { connect } from '../operations/connect.js';
import { createHiLo } from '../operations/create-hilo.js';
import {
  checkKeyGuardOption,
  sqliteDefaultKeyGuard,
  type DefaultKeyGuard,
  type InstallLine,
} from '../operations/sqlite-guard-default.js';
import type { SqlClient } from '../sql/sql-client.js';
import {
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  PASSED_GENERATOR_OPTION_NAMES,
  refuseLayoutInMemory,
  type HiSourceLayout,
  type PassedGeneratorOptions,
} from './options.js';
import { ownGenerator, type OwnedGenerator } from './owned-generator.js';
import { adapterStoredKeys, checkVerifyBlocks } from './stored-keys.js';

/**
 * Where an adapter's keys come from — exactly one of `url`, `client` or `generator`, or none of them when the
 * adapter opens a connection of its own ({@link KeySupplySetup.connect}) — and, when hilo builds the generator,
 * how. Shared by the adapters so every one of them accepts the same options with the same messages.
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

/**
 * A generator an adapter draws keys from, with the life cycle settled: `close()` closes only what the
 * supply opened itself (the generator and connection it built from `url`, the generator it built on your
 * `client`, the connection the adapter's `connect` opened), never what you passed in.
 */
export interface KeySupply {
  /** The generator; resolves once connected (the connection opens on first use, not at construction). */
  generator(): Promise<HiLoGenerator<number | bigint>>;
  /** The generator when it is already built, for synchronous paths; `undefined` before the first `generator()`. */
  readonly current: HiLoGenerator<number | bigint> | undefined;
  /**
   * A key of `segment` from memory when a block is in hand. Otherwise `undefined`, after starting what brings
   * one: the connection and the segment's first reservation when the generator is not built yet, the
   * reservation when it is. For ORM hooks that cannot wait for the database (Drizzle's `$defaultFn`, a Kysely
   * plugin): on `undefined` they throw their `HiLoNotReadyError`, and a retry a moment later finds the key.
   * A failed connection attempt is not reported here; the next awaited call (`generator()`, `warm()`) reports it.
   * @example
   * ```ts
   * const key = supply.tryNext('orders');
   * if (key === undefined) throw new HiLoNotReadyError('orders');
   * ```
   */
  tryNext(segment: string): number | bigint | undefined;
  /**
   * Connects if needed, then installs SQLite's key guard (`keyGuard`) on the key columns that lack it, for tables
   * the adapter learnt or the database created since; nothing elsewhere, nor with `keyGuard: false`.
   */
  guard(): Promise<void>;
  /** Closes what the supply opened; later calls to `generator()` throw. Idempotent. */
  close(): Promise<void>;
}

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
 * What an adapter's {@link KeySupplySetup.connect} opens when its user passed none of `url`, `client` and
 * `generator`: a connection reservations can run on, or the ORM's in-memory SQLite database.
 */
export type AdapterConnection =
  | {
      /**
       * A connection reservations run on, never the one the ORM's transactions hold: a pool of hilo's own opened
       * with the ORM's settings, a second handle on the ORM's SQLite file, or the ORM's pool itself (each
       * reservation then takes a pooled connection of its own).
       */
      readonly client: SqlClient;
      /** Closes what `connect` opened for hilo, after the generator closed; leave it out for the ORM's own pool. */
      readonly release?: () => unknown;
    }
  | {
      /**
       * The ORM's SQLite database is in memory (`:memory:`): private to the ORM's one connection, so no connection
       * of hilo's own can see it, and a hi table in it would be written inside the application's transactions.
       * The counter lives in this process instead (`privateDatabaseSource`), started above the keys the
       * supply's `columns` hold; the {@link HiSourceLayout} options are refused, there being no hi table.
       */
      readonly inMemory: {
        /** The object the database lives and dies with (the DataSource, the ORM): one counter per owner. */
        readonly owner: object;
        /** Runs a read on the ORM's own connection to that database. */
        readonly query: PrivateDatabaseQuery;
        /** The database in the adapter's words, for the message refusing a layout option. */
        readonly database: string;
      };
    };

/**
 * How an adapter opens its key supply: its name in messages, the key columns it found, and what it decides
 * beyond its user's options (its own connection, a hi source of its user's, the generator options it derives).
 */
export interface KeySupplySetup extends KeySupplyWording {
  /** How the adapter is called in messages, e.g. `"hiloDrizzle()"`. */
  readonly owner: string;
  /**
   * The tables and key columns of each segment, for verified blocks (see `adapterStoredKeys`), SQLite's key
   * guard and an in-memory database's counter; a function when the adapter learns them later (asked at each
   * check). Unused with `verifyBlocks: false` or a `generator` passed in.
   * @default []
   */
  readonly columns?: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]);
  /**
   * Opens the connection reservations run on when the user passed none of `url`, `client` and `generator` (an
   * ORM whose connection hilo can follow: TypeORM's DataSource, MikroORM's settings). Called on the first
   * `generator()`, again after a failed attempt. Without it, exactly one of the three is required.
   */
  readonly connect?: () => AdapterConnection | Promise<AdapterConnection>;
  /**
   * A hi source built on the connection instead of `createHiLo`'s sequence or table, e.g. TypeORM's
   * `source: (client) => HiSource` option; the {@link HiSourceLayout} options do not apply to it.
   */
  readonly source?: (client: SqlClient) => HiSource;
  /**
   * Generator options the adapter decides rather than its user: `segments` from its key columns (see
   * `segmentsForColumns`, which merges the user's), `keyType` and `idFormat` where the adapter offers them.
   * @default { keyType: 'bigint' }
   */
  readonly generatorOptions?: Pick<HiLoGeneratorOptions<KeyType>, 'segments' | 'keyType' | 'idFormat'>;
  /**
   * `false` when the adapter offers no `keyGuard` option (and installs no key guard on SQLite).
   * @default true
   */
  readonly keyGuard?: boolean;
}

/**
 * Validates the connection options and returns a key supply; nothing connects before the first
 * `generator()` (or `tryNext()`). A failed connection attempt is not remembered: the next call tries again.
 * Every adapter opens its keys here, so `url`, `client` and `generator`, verified blocks, SQLite's key guard and
 * "close only what was opened" work, and are worded, the same in each.
 *
 * @param options - the user's options, the adapter's own taken out.
 * @param setup - how the adapter is called, its key columns and what it decides itself; a string is the
 *   `owner` alone (and then `wording` and `columns` follow as arguments).
 * @throws HiLoConfigurationError for an unknown or malformed option, or not exactly one of `url`, `client`,
 *   `generator` (at most one with `setup.connect`).
 * @example
 * ```ts
 * const supply = openKeySupply({ url: process.env.DATABASE_URL, blockSize: 100 }, { owner: 'hiloKysely()', columns });
 * const key = await (await supply.generator()).next('orders');
 * ```
 */
export function openKeySupply(options: KeySupplyOptions, setup: KeySupplySetup): KeySupply;
/**
 * The form with `owner`, `wording` and `columns` as arguments.
 * @param owner - how the adapter is called in messages, e.g. `"hiloDrizzle()"`.
 * @param columns - the tables and key columns of each segment, for verified blocks (see `adapterStoredKeys`);
 *   unused with `verifyBlocks: false` or a `generator` passed in.
 * @example
 * ```ts
 * const supply = openKeySupply({ url: process.env.DATABASE_URL, blockSize: 100 }, 'hiloKysely()');
 * ```
 */
export function openKeySupply(
  options: KeySupplyOptions,
  owner: string,
  wording?: KeySupplyWording,
  columns?: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]),
): KeySupply;
export function openKeySupply(
  options: KeySupplyOptions,
  setupOrOwner: KeySupplySetup | string,
  wording: KeySupplyWording = {},
  columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]) = [],
): KeySupply {
  const setup: KeySupplySetup =
    typeof setupOrOwner === 'string' ? { ...wording, owner: setupOrOwner, columns } : setupOrOwner;
  const owner = setup.owner;
  const keyColumns = setup.columns ?? [];
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
    ...passed
  } = options;
  const generatorOptions = { ...passed, ...setup.generatorOptions };
  checkVerifyBlocks(options, owner);
  const keyGuard = setup.keyGuard !== false && checkKeyGuardOption(keyGuardOption);
  const given = [url, client, generator].filter((v) => v !== undefined).length;
  if (given > 1 || (given === 0 && setup.connect === undefined)) {
    throw new HiLoConfigurationError(
      `${owner} needs ${setup.connect === undefined ? 'exactly' : 'at most'} one of \`url\`, \`client\` or ` +
        `\`generator\`, got ${given}; pass the database URL, e.g. ` +
        `${setup.example ?? '{ url: process.env.DATABASE_URL }'}.`,
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

  /** The connection reservations run on, and how to release it: the user's client stays theirs. */
  const open = async (): Promise<AdapterConnection> => {
    if (client !== undefined) return { client };
    // a pool stuck on a link that drops packets is given up after closeTimeoutMs too
    if (url !== undefined) {
      const closeTimeoutMs = generatorOptions.closeTimeoutMs;
      const sql = await connect(url, closeTimeoutMs === undefined ? {} : { closeTimeoutMs });
      return { client: sql, release: () => sql.close() };
    }
    return setup.connect!();
  };

  let guard: DefaultKeyGuard | undefined;
  const build = async (): Promise<OwnedGenerator> => {
    if (generator !== undefined) return { generator, close: async () => {} };
    const connection = await open();
    if ('inMemory' in connection) {
      // a database private to the ORM's connection: the counter lives in this process, above its stored keys
      const { owner: holder, query, database } = connection.inMemory;
      refuseLayoutInMemory(options, database, owner);
      const list = typeof keyColumns === 'function' ? keyColumns() : keyColumns;
      const memory = privateDatabaseSource(holder, list, query);
      return ownGenerator<number | bigint>(
        () => createHiLoGenerator<KeyType>({ keyType: 'bigint', ...generatorOptions, source: memory }),
        () => undefined,
      );
    }
    const { client: sql, release = () => undefined } = connection;
    // SQLite stores a key-less row with a rowid hilo hands out later: guard the tables (sqlite-guard-default.ts)
    guard = keyGuard
      ? sqliteDefaultKeyGuard(
          sql,
          setup.keyGuardColumns ?? (typeof keyColumns === 'function' ? keyColumns : () => keyColumns),
          setup.installLine,
        )
      : undefined;
    try {
      await guard?.ensure();
    } catch (error) {
      await release();
      throw error;
    }
    const verified = adapterStoredKeys(sql, options, keyColumns, owner, { schemaOption: setup.schemaOption });
    const storedKeys = guard === undefined ? verified : guard.around(verified);
    const withKeys = {
      keyType: 'bigint' as KeyType,
      ...generatorOptions,
      ...(storedKeys === undefined ? {} : { storedKeys }),
    };
    const built = (): HiLoGenerator<number | bigint> =>
      setup.source !== undefined
        ? createHiLoGenerator({ ...withKeys, source: setup.source(sql) })
        : createHiLo({ ...withKeys, client: sql, source, table, schema, strategy, create });
    return ownGenerator<number | bigint>(built, release);
  };

  let building: Promise<OwnedGenerator> | undefined;
  let built: OwnedGenerator | undefined;
  let closed = false;
  const supply: KeySupply = {
    generator() {
      if (closed)
        return Promise.reject(
          new HiLoConfigurationError(setup.closed ?? `${owner} was closed; create a new one to get more keys.`),
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
    tryNext(segment) {
      const current = supply.current;
      if (current !== undefined) return current.tryNextSync(segment);
      // start connecting, and the segment's first reservation, so that a retry after a moment finds keys
      supply.generator().then(
        (g) => g.tryNextSync(segment),
        () => undefined,
      );
      return undefined;
    },
    async guard() {
      await supply.generator();
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
  return supply;
}
