// The one way every adapter opens its key supply: which of `url`, `client`, `generator` (or the adapter's own
// connection) the keys come from, the generator built on it, SQLite's key guard, and closing only what was opened.
import { HiLoConfigurationError } from '../errors.js';
import { createHiLoGenerator, type HiLoGenerator } from '../engine/generator.js';
import type { HiLoGeneratorOptions } from '../engine/options.js';
import type { HiSource, KeyType, StoredKeyColumn } from '../engine/types.js';
import { privateDatabaseSource, type PrivateDatabaseQuery } from '../dialects/sqlite/private-source.js';
import { DIALECTS } from '../dialects/index.js';
import { connect, dialectOfUrl } from '../operations/connect.js';
import { createHiLo } from '../operations/create-hilo.js';
import {
  checkKeyGuardOption,
  sqliteDefaultKeyGuard,
  type DefaultKeyGuard,
  type InstallLine,
} from '../operations/sqlite-guard-default.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import {
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  PASSED_GENERATOR_OPTION_NAMES,
  refuseLayoutInMemory,
  type HiSourceLayout,
  type PassedGeneratorOptions,
} from './options.js';
import { ownGenerator, type OwnedGenerator } from './owned-generator.js';
import { segmentsForColumns, type KeyColumnLimit } from './segments.js';
import { adapterStoredKeys, checkVerifyBlocks } from './stored-keys.js';
import { configurationErrors } from '../error-messages.js';

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

/**
 * What {@link openKeySupply} takes: {@link KeySupplyOptions}, with `source` also a function `(client) => HiSource`
 * where the adapter allows one (`sourceFunction`); an adapter's own options may be there too, when its
 * `optionNames` name them.
 */
export type KeySupplyInput = Omit<KeySupplyOptions, 'source'> & {
  readonly source?: KeySupplyOptions['source'] | ((client: SqlClient) => HiSource);
};

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
  /**
   * An adapter's `warm()`: connects if needed, installs SQLite's key guard where it is missing (as {@link guard}
   * does, also for a table created since start whose segment needs no block), then reserves a block for each
   * segment, so that {@link tryNext} and `nextSync()` are served at once. Fails fast when the database cannot be
   * reached.
   * @example
   * ```ts
   * await supply.warm(['orders', 'order_items']);
   * ```
   */
  warm(segments: Iterable<string>): Promise<void>;
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

/** What {@link checkKeySupplyOptions} knows of the adapter whose options it checks. */
export interface KeySupplyChecks {
  /** How the adapter is called in messages, e.g. `"hiloDrizzle()"`. */
  readonly owner: string;
  /**
   * The option names the adapter accepts, when they are not {@link KEY_SUPPLY_OPTION_NAMES}: its own options added
   * (the adapter reads them; the key supply passes none of them on), and those it does not offer left out (refused
   * by name, like a typo).
   * @default KEY_SUPPLY_OPTION_NAMES
   */
  readonly optionNames?: ReadonlySet<string>;
  /**
   * Whether the adapter opens a connection of its own when the user gives none of `url`, `client` and
   * `generator` ({@link KeySupplySetup.connect}): then at most one of them is required, else exactly one.
   * @default false
   */
  readonly ownConnection?: boolean;
  /**
   * Whether the `source` option may be a function `(client) => HiSource`: a hi source of the user's, built on the
   * connection instead of `createHiLo`'s sequence or table (TypeORM's `source`); the {@link HiSourceLayout}
   * options do not apply to it.
   * @default false
   */
  readonly sourceFunction?: boolean;
  /** A call that works, shown when none or several of `url`, `client`, `generator` were given. */
  readonly example?: string;
  /**
   * The databases the adapter runs on, when not every one, and why not the others: a `url` or `client` of another
   * is refused when the options are checked, before anything connects (hilo-prisma on SQLite).
   * @default every database
   */
  readonly runsOn?: { readonly dialects: readonly SqlDialect[]; readonly why: string };
}

/**
 * How an adapter opens its key supply: its name in messages, the key columns it found, and what it decides
 * beyond its user's options (its own connection, the generator options it derives).
 */
export interface KeySupplySetup extends KeySupplyWording, Omit<KeySupplyChecks, 'ownConnection'> {
  /**
   * The tables and key columns of each segment, for verified blocks (see `adapterStoredKeys`), SQLite's key
   * guard and an in-memory database's counter; a function when the adapter learns them later (asked at each
   * check). Unused with `verifyBlocks: false` or a `generator` passed in.
   * @default []
   */
  readonly columns?: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]);
  /**
   * Whether a `columns` function already gives every key column when the generator is built (it depends on a
   * setting learnt before the first key, such as Prisma's driver-adapter `schema`), not on tables learnt later: its
   * columns then choose the store's default schema, as a list's do (tables all in one schema keep their store
   * there). Leave it out for tables learnt later (Drizzle): a store placed by the first table learnt would differ
   * between processes.
   * @default false
   */
  readonly columnsKnownAtBuild?: boolean;
  /**
   * The key columns with the block size each declares and the largest key it holds: the generator's `segments`
   * are built from them and the user's `segments` and `maxKey` (`segmentsForColumns`), when the supply builds
   * the generator. Computed at once, so two block sizes for one segment are refused when the supply is opened.
   */
  readonly limits?: Iterable<KeyColumnLimit>;
  /**
   * Opens the connection reservations run on when the user passed none of `url`, `client` and `generator` (an
   * ORM whose connection hilo can follow: TypeORM's DataSource, MikroORM's settings). Called on the first
   * `generator()`, again after a failed attempt. Without it, exactly one of the three is required.
   */
  readonly connect?: () => AdapterConnection | Promise<AdapterConnection>;
  /**
   * Generator options the adapter decides rather than its user: `keyType` and `idFormat` where the adapter
   * offers them as its own options, `segments` where it builds them otherwise than from {@link limits}.
   * @default { keyType: 'bigint' }
   */
  readonly generatorOptions?: Pick<HiLoGeneratorOptions<KeyType>, 'segments' | 'keyType' | 'idFormat'>;
  /**
   * `false` when the adapter offers no `keyGuard` option and installs no key guard on SQLite.
   * @default true
   */
  readonly keyGuard?: boolean;
  /**
   * Whether the adapter's keys are drawn only where nothing can wait for the database ({@link KeySupply.tryNext}
   * from a synchronous hook, with no awaited hook behind it: Drizzle's `$defaultFn`), so that a key not in memory
   * fails the insert. The generator the supply builds then keeps a standby block from each block's first key
   * (`prefetchAt: 0`) unless the user set `prefetchAt`: a block boundary is crossed on the standby, and the
   * reservation behind it has a whole block's worth of inserts to finish its checks (one probe per table, and per
   * tenant's table), not the last fifth of one.
   * @default false
   */
  readonly drawsWithoutWaiting?: boolean;
}

/**
 * Checks an adapter's options the way {@link openKeySupply} does, for an adapter that checks them before it can
 * open the supply (`withHiLo()` before the DataSource connects, `HiLo.configure()` before the ORM exists): the
 * option names, `url`, `client`, `generator` (how many, and their shapes), `source`, `verifyBlocks` and what only
 * has an effect with it, and `keyGuard`.
 * @throws HiLoConfigurationError naming the option and the fix.
 * @example
 * ```ts
 * checkKeySupplyOptions(options, { owner: 'HiLo.configure()', optionNames: OPTION_NAMES, ownConnection: true });
 * ```
 */
export function checkKeySupplyOptions(options: unknown, checks: KeySupplyChecks): void {
  const { owner } = checks;
  if (options === null || typeof options !== 'object')
    throw HiLoConfigurationError.invalidOption('options', 'an object', options);
  const names = checks.optionNames ?? KEY_SUPPLY_OPTION_NAMES;
  HiLoConfigurationError.checkOptionNames(options, names, owner);
  const { url, client, generator, source, verifyBlocks, onStoreBehind, keyGuard } = options as KeySupplyInput;
  checkVerifyBlocks(options, owner);
  checkKeyGuardOption(keyGuard);
  const given = [url, client, generator].filter((v) => v !== undefined).length;
  if (given > 1 || (given === 0 && checks.ownConnection !== true)) {
    const list = ['url', 'client', 'generator'].filter((name) => names.has(name)).map((name) => `\`${name}\``);
    throw checks.ownConnection === true
      ? // (given > 1 here: at least two of them are options the adapter takes)
        configurationErrors.tooManyConnectionOptions(owner, list, given)
      : configurationErrors.notOneConnectionOption(owner, given, checks.example);
  }
  if (url !== undefined && typeof url !== 'string')
    throw HiLoConfigurationError.invalidOption('url', 'a database URL string', url);
  if (client !== undefined && typeof (client as { query?: unknown }).query !== 'function') {
    throw HiLoConfigurationError.invalidOption('client', 'a SqlClient (connect(url), pgClient(pool), …)', client);
  }
  const dialect = typeof url === 'string' ? dialectOfUrl(url) : client?.dialect;
  if (checks.runsOn !== undefined && dialect !== undefined && !checks.runsOn.dialects.includes(dialect)) {
    const scheme = typeof url === 'string' ? /^[a-z0-9+]+:/i.exec(url)?.[0] : undefined;
    throw configurationErrors.adapterDoesNotRunOn(owner, DIALECTS[dialect].displayName, scheme, checks.runsOn.why);
  }
  if (generator !== undefined && typeof (generator as { reserve?: unknown }).reserve !== 'function') {
    throw HiLoConfigurationError.invalidOption('generator', 'a HiLoGenerator (createHiLoGenerator(...))', generator);
  }
  const ownSource = checks.sourceFunction === true && typeof source === 'function';
  if (source !== undefined && source !== 'sequence' && source !== 'table' && !ownSource) {
    const expected = checks.sourceFunction === true ? '"sequence", "table" or a function (client) => HiSource' : '';
    throw HiLoConfigurationError.invalidOption('source', expected || '"sequence" or "table"', source);
  }
  if (generator !== undefined && (verifyBlocks !== undefined || onStoreBehind !== undefined)) {
    throw configurationErrors.generatorWithVerifyOption(
      owner,
      verifyBlocks === undefined ? 'onStoreBehind' : 'verifyBlocks',
    );
  }
  if (generator !== undefined && keyGuard !== undefined) {
    throw configurationErrors.generatorWithKeyGuard(owner);
  }
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
 * @throws HiLoConfigurationError for an unknown or malformed option (see {@link checkKeySupplyOptions}), or
 *   two block sizes for one segment in `setup.limits`.
 * @example
 * ```ts
 * const supply = openKeySupply({ url: process.env.DATABASE_URL, blockSize: 100 }, { owner: 'hiloKysely()', columns });
 * const key = await (await supply.generator()).next('orders');
 * ```
 */
export function openKeySupply(options: KeySupplyInput, setup: KeySupplySetup): KeySupply;
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
  options: KeySupplyInput,
  setupOrOwner: KeySupplySetup | string,
  wording: KeySupplyWording = {},
  columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[]) = [],
): KeySupply {
  const setup: KeySupplySetup =
    typeof setupOrOwner === 'string' ? { ...wording, owner: setupOrOwner, columns } : setupOrOwner;
  const { owner } = setup;
  const keyColumns = setup.columns ?? [];
  checkKeySupplyOptions(options, { ...setup, ownConnection: setup.connect !== undefined });
  // the adapter's own options (in `setup.optionNames`) are its to read: only the supply's own are passed on
  const ours = Object.fromEntries(Object.entries(options).filter(([name]) => KEY_SUPPLY_OPTION_NAMES.has(name)));
  const {
    url,
    client,
    generator,
    source,
    table,
    schema,
    strategy,
    create,
    verifyBlocks: _verifyBlocks,
    onMissingTable: _onMissingTable,
    onUnreadableKeys: _onUnreadableKeys,
    keyGuard: keyGuardOption,
    ...passed
  } = ours as KeySupplyInput;
  const keyGuard = setup.keyGuard !== false && checkKeyGuardOption(keyGuardOption);
  // a generator passed in keeps the segments it was built with
  const segments =
    setup.limits === undefined || generator !== undefined ? {} : { segments: segmentsForColumns(setup.limits, passed) };
  // a hook that cannot wait crosses each block boundary on a standby block (see `drawsWithoutWaiting`)
  const standby = setup.drawsWithoutWaiting === true && passed.prefetchAt === undefined ? { prefetchAt: 0 } : {};
  const generatorOptions = { ...passed, ...standby, ...segments, ...setup.generatorOptions };

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
    // one store per tenant by default: tables all in one named schema (a client bound to a tenant's schema or
    // database) keep their store beside them, never in a default schema other tenants' clients share
    const known = typeof keyColumns === 'function' && setup.columnsKnownAtBuild === true ? keyColumns() : keyColumns;
    const storeSchema = schema ?? (typeof source === 'function' ? undefined : tenantSchemaOf(known));
    const verified = adapterStoredKeys(
      sql,
      options,
      keyColumns,
      owner,
      { schemaOption: setup.schemaOption },
      typeof source === 'function' ? undefined : { schema: storeSchema },
    );
    const storedKeys = guard === undefined ? verified : guard.around(verified);
    const withKeys = {
      keyType: 'bigint' as KeyType,
      ...generatorOptions,
      ...(storedKeys === undefined ? {} : { storedKeys }),
    };
    const built = (): HiLoGenerator<number | bigint> =>
      typeof source === 'function'
        ? createHiLoGenerator({ ...withKeys, source: source(sql) })
        : createHiLo({
            ...withKeys,
            client: sql,
            source,
            table,
            schema: storeSchema,
            strategy,
            create,
          });
    return ownGenerator<number | bigint>(built, release);
  };

  let building: Promise<OwnedGenerator> | undefined;
  let built: OwnedGenerator | undefined;
  let closed = false;
  const supply: KeySupply = {
    generator() {
      if (closed) return Promise.reject(configurationErrors.supplyClosed(owner, setup.closed));
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
    async warm(segments) {
      await supply.guard();
      await (await supply.generator()).warm([...segments]);
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

/**
 * The one schema every key table names, when they all name the same one: the tenant a client per tenant is bound
 * to (TypeORM's DataSource `schema`, Prisma's adapter `schema`, a Drizzle `pgSchema`), where its store belongs.
 * `undefined` when a table names none, when they name several (one store checked against all of them), and for
 * tables learnt later (a function).
 */
function tenantSchemaOf(columns: readonly StoredKeyColumn[] | (() => readonly StoredKeyColumn[])): string | undefined {
  if (typeof columns === 'function' || columns.length === 0) return undefined;
  const schemas = new Set(columns.map((c) => (c.tenants === undefined ? c.schema : undefined)));
  const [only] = schemas;
  return schemas.size === 1 ? only : undefined;
}
