import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  EntitySubscriberInterface,
  EntityTarget,
  InsertEvent,
  InsertResult,
  ObjectLiteral,
} from 'typeorm';
import {
  HiLoConfigurationError,
  HiLoExhaustedError,
  loadGraph,
  type GraphLoadResult,
  type HiLoGenerator,
  type HiSource,
  type SqlClient,
} from 'hilo-core';
import {
  checkKeySupplyOptions,
  columnTypeMaxKey,
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  keysInMemoryOnly,
  keyToField,
  openKeySupply,
  PASSED_GENERATOR_OPTION_NAMES,
  type AdapterConnection,
  type HiSourceLayout,
  type KeyFieldLimits,
  type OwnedGenerator,
  type PassedGeneratorOptions,
} from 'hilo-core/adapter-kit';
import { dataSourceClient } from './driver-client.js';
import { installedForm, keyTransformer } from './key-transformer.js';
import { findHiLoColumn, hiloColumnOptionsOf } from './hilo-generated-column.js';
import {
  dataSourceOf,
  disableInternals,
  enableInternals,
  forgetFresh,
  graphTargetOf,
  markFresh,
  prepareInternals,
  upsertKeepingKey,
} from './typeorm-internals.js';
import { isBetterSqlite, sqliteReservations } from './sqlite-connection.js';
import { configurationErrors, exhaustedErrors } from './error-messages.js';
import { graphInput, graphTables, rowsPerSegment, type TypeOrmLoadGraphOptions } from './graph-load.js';

/** Options of {@link installHiLo} and {@link withHiLo}. */
export interface HiLoTypeOrmOptions extends PassedGeneratorOptions, Omit<HiSourceLayout, 'source'> {
  /**
   * Where blocks are reserved: `'sequence'` (one PostgreSQL sequence per segment), `'table'` (one row per
   * segment in a hi table), or a hi source of your own built on `client`.
   * @default "sequence" on PostgreSQL, "table" elsewhere
   * @example
   * ```ts
   * await installHiLo(dataSource, { source: 'table', table: 'hilo_segments' });
   * ```
   */
  source?: 'sequence' | 'table' | ((client: SqlClient) => HiSource);
  /**
   * The connection reservations use. By default a pooled connection of the DataSource's own driver (never
   * the one a transaction holds); for a `better-sqlite3` file, a connection of hilo's own to that file;
   * for `:memory:`, no connection (a counter in this process). Pass one of your own for replicated MySQL,
   * e.g. hilo-core's `await connect(url)`.
   * @default the DataSource's driver pool
   */
  client?: SqlClient;
  /**
   * Let `save()` insert new entities whose key hilo assigned without TypeORM's SELECT by key first. It
   * works through a private TypeORM class; `false` (or a TypeORM whose internals differ, with one process
   * warning) keeps TypeORM's usual SELECT then INSERT.
   * @default true
   * @example
   * ```ts
   * await installHiLo(dataSource, { saveWithoutSelect: false });
   * ```
   */
  saveWithoutSelect?: boolean;
  /**
   * Reserve a block for every hi/lo segment during installation, so that `create()` has keys at once and a
   * database without the hi/lo objects fails at start-up rather than at the first insert.
   * @default true
   */
  warm?: boolean;
}

/** What hilo knows about one entity's key column. */
interface KeyColumn {
  readonly column: ColumnMetadata;
  readonly segment: string;
  readonly blockSize: number | undefined;
  readonly keyType: 'number' | 'bigint';
  /** `Entity.property`, and the column's limits (its largest key), for {@link keyToField}: built once, not per key. */
  readonly where: string;
  readonly limits: KeyFieldLimits & { readonly maxKey: bigint };
}

const installations = new WeakMap<DataSource, HiLoTypeOrm>();
const KNOWN_OPTIONS = new Set([
  ...HI_SOURCE_LAYOUT_OPTION_NAMES,
  'client',
  'warm',
  'saveWithoutSelect',
  ...PASSED_GENERATOR_OPTION_NAMES,
]);

/** How installHiLo()'s options are checked, at once and again by the key supply. */
const CHECKS = { owner: 'installHiLo()', optionNames: KNOWN_OPTIONS, sourceFunction: true };

function validateOptions(options: HiLoTypeOrmOptions): void {
  // reservations go to the DataSource's own connection when no `client` is given
  checkKeySupplyOptions(options, { ...CHECKS, ownConnection: true });
  for (const name of ['warm', 'saveWithoutSelect'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw HiLoConfigurationError.invalidOption(name, 'true or false', options[name]);
  }
}

/**
 * hilo wired into one DataSource: the generator, the entities with hi/lo keys and their segments.
 * Get it from {@link installHiLo} or {@link hiloOf}.
 */
export class HiLoTypeOrm {
  /** The DataSource this installation serves. */
  readonly dataSource: DataSource;
  /** The generator behind every key (bigint keys; columns with `keyType: 'number'` convert). */
  readonly generator: HiLoGenerator<bigint>;
  /**
   * Whether `save()` inserts new entities whose key hilo assigned without a SELECT first (see the
   * `saveWithoutSelect` option; `false` also when TypeORM's internals are not what hilo expects).
   */
  readonly savesWithoutSelect: boolean;
  readonly #columns: Map<EntityMetadata, KeyColumn>;
  readonly #subscriber: EntitySubscriberInterface;
  readonly #owned: OwnedGenerator<bigint>;
  /** Per metadata, the relations whose objects `create()` follows: those cascading inserts, not lazy. */
  readonly #cascades = new Map<EntityMetadata, EntityMetadata['relations']>();
  #closed = false;
  /** Uncounts this installation's key columns (see `markInstalled`). */
  #unmark: Array<() => void> = [];

  /** @internal use {@link installHiLo}. */
  constructor(
    dataSource: DataSource,
    owned: OwnedGenerator<bigint>,
    columns: Map<EntityMetadata, KeyColumn>,
    saveWithoutSelect: boolean,
  ) {
    this.dataSource = dataSource;
    this.generator = owned.generator;
    this.#owned = owned;
    this.#columns = columns;
    this.savesWithoutSelect = saveWithoutSelect;
    this.#subscriber = { beforeInsert: (event: InsertEvent<ObjectLiteral>) => this.#beforeInsert(event) };
  }

  /** The segments of this DataSource's hi/lo entities. */
  get segments(): string[] {
    return [...new Set([...this.#columns.values()].map((c) => c.segment))];
  }

  /**
   * The segment an entity's keys come from.
   * @example
   * ```ts
   * hiloOf(dataSource).segmentOf(Order) // "order"
   * ```
   */
  segmentOf(target: EntityTarget<ObjectLiteral>): string {
    return this.#keyColumn(this.dataSource.getMetadata(target)).segment;
  }

  /**
   * A new key for an entity, reserving a block if none is in memory.
   * @example
   * ```ts
   * const id = await hiloOf(dataSource).next(Order);
   * ```
   */
  async next(target: EntityTarget<ObjectLiteral>): Promise<number | bigint> {
    const key = this.#keyColumn(this.dataSource.getMetadata(target));
    return this.#convert(key, await this.generator.next(key.segment));
  }

  /**
   * Makes sure `count` keys of an entity's segment are in memory, in one round trip for the shortfall, so
   * that the next `count` `create()` calls all get their key synchronously. Use it before creating a large
   * batch in one go: blocks are sized from the consumption rate and can be smaller than a burst (a key
   * missing at `create()` is still assigned before INSERT, but is not known before `save()`).
   * @example
   * ```ts
   * await hiloOf(dataSource).ensure(OrderItem, rows.length);
   * const items = rows.map((row) => items.create(row)); // every item has its key
   * ```
   */
  async ensure(target: EntityTarget<ObjectLiteral>, count: number): Promise<void> {
    const key = this.#keyColumn(this.dataSource.getMetadata(target));
    await this.generator.ensure(key.segment, count);
  }

  /** Stops handing out keys and returns the unused tail of each block where the source can prove it is safe. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (installations.get(this.dataSource) === this) {
      installations.delete(this.dataSource);
      disableInternals(this.dataSource);
    }
    for (const unmark of this.#unmark.splice(0)) unmark();
    const subscribers = this.dataSource.subscribers;
    const index = subscribers.indexOf(this.#subscriber);
    if (index >= 0) subscribers.splice(index, 1);
    await this.#owned.close();
  }

  /** @internal registers the subscriber and the create() hook. */
  attach(): void {
    // on this DataSource's metadata only, the key columns drop the check for a forgotten installation
    for (const { column } of this.#columns.values()) {
      const declared = column.transformer;
      column.transformer = installedForm(declared) ?? declared;
      this.#unmark.push(() => (column.transformer = declared));
    }
    this.dataSource.subscribers.push(this.#subscriber);
    hookManager(this.dataSource.manager);
  }

  /**
   * Gives every new entity in `value` (an entity or array from `create()`, and the objects reachable through
   * relations that cascade inserts) a key from memory. Entities that already have a key are left alone;
   * when no key is in memory the entity stays without one and `beforeInsert` assigns it.
   */
  assignCreated(value: unknown, metadata: EntityMetadata, seen?: Set<object>): void {
    if (Array.isArray(value)) {
      for (const item of value) this.assignCreated(item, metadata, seen);
      return;
    }
    if (typeof value !== 'object' || value === null || value instanceof Promise || seen?.has(value)) return;
    // findInheritanceMetadata() exists from TypeORM 0.3.16; before it, create() of a child entity names the child itself
    const actual =
      (metadata as { findInheritanceMetadata?: (value: object) => EntityMetadata }).findInheritanceMetadata?.(value) ??
      metadata;
    const key = this.#columns.get(actual);
    if (key && key.column.getEntityValue(value) == null) {
      const next = this.generator.tryNextSync(key.segment);
      if (next !== undefined) {
        const converted = this.#convert(key, next);
        key.column.setEntityValue(value, converted);
        if (this.savesWithoutSelect) markFresh(actual, value, converted);
      }
    }
    let cascades = this.#cascades.get(actual);
    if (!cascades)
      this.#cascades.set(
        actual,
        (cascades = actual.relations.filter((relation) => relation.isCascadeInsert && !relation.isLazy)),
      );
    if (cascades.length === 0) return;
    // only objects that lead on can lead back: they alone need remembering (a create() of a leaf allocates nothing)
    (seen ??= new Set()).add(value);
    for (const relation of cascades)
      this.assignCreated(relation.getEntityValue(value), relation.inverseEntityMetadata, seen);
  }

  /**
   * Loads a graph of new entities in bulk, keys from hilo: `roots` (entity objects or plain objects of `target`,
   * an array, iterable or async iterable) with the entities of their relations cascading inserts (one-to-many
   * and inverse one-to-one, nested to any depth). hilo-core's `loadGraph()` writes them parents first, on one
   * connection in one transaction (PostgreSQL: binary `COPY`; MariaDB/MySQL and SQLite: multi-row INSERTs), and
   * writes each key into its entity and each child's foreign-key property, as `save()` would. A failure rolls
   * everything back and throws `HiLoGraphLoadError` naming the table; what it cannot write as `save()` would (an
   * entity without a hi/lo key, a many-to-many cascade, inheritance, a default only the database computes) is
   * refused with a `HiLoConfigurationError` naming the entity and property. With `transaction`, the load runs in a
   * savepoint of your transaction. On SQLite, keys are reserved before the load (for an array of roots) or must
   * be in memory (`ensure()`): the load holds the file's one write lock.
   * @example
   * ```ts
   * const order = Object.assign(new Order(), { reference: 'A-1', items: [Object.assign(new OrderItem(), { sku: 'TEA' })] });
   * await hiloOf(dataSource).loadGraph(Order, [order]); // order.id, order.items[0].id are set
   * ```
   */
  async loadGraph<T extends ObjectLiteral>(
    target: EntityTarget<T>,
    roots: AsyncIterable<Partial<T>> | Iterable<Partial<T>>,
    options: TypeOrmLoadGraphOptions = {},
  ): Promise<GraphLoadResult> {
    const { transaction, ...rest } = options;
    const metadata = this.dataSource.getMetadata(target);
    const tables = graphTables(metadata, (entity) => {
      const key = this.#columns.get(entity);
      return key && { ...key, convert: (value: number | bigint) => this.#convert(key, BigInt(value)) };
    });
    const root = tables.get(metadata)!;
    const { target: graphTarget, sqlite } = await graphTargetOf(this.dataSource, transaction);
    let generator = this.generator;
    if (sqlite) {
      if (Array.isArray(roots))
        for (const [segment, count] of rowsPerSegment(root, roots)) await generator.ensure(segment, count);
      generator = keysInMemoryOnly(generator, configurationErrors.graphSqliteKeysNotInMemory);
    }
    const driver = this.dataSource.driver;
    return loadGraph({
      ...rest,
      target: graphTarget,
      generator,
      tables: [...tables.values()].map((table) => table.spec),
      input: graphInput(root, roots, {
        prepare: (value, column): unknown => driver.preparePersistentValue(value, column) as unknown,
        now: new Date(),
      }),
    });
  }

  /**
   * @internal `manager.upsert()` for this DataSource. For an entity with a hi/lo key that is not the conflict
   * target, a conflict updates the existing row but never its key (TypeORM would overwrite it with the key
   * `create()` gave), and where TypeORM can read the INSERT back (PostgreSQL, MariaDB 10.5+) and you asked
   * for no `returning`, each entity and `identifiers` entry then holds the key its row really has: on a
   * conflict, the stored one, not the key hilo had given it (which stays unused).
   */
  async upsert(
    manager: EntityManager,
    upsert: Upsert,
    target: EntityTarget<ObjectLiteral>,
    values: unknown,
    conflict: unknown,
  ): Promise<InsertResult> {
    const metadata = this.dataSource.getMetadata(target);
    const key = this.#columns.get(metadata);
    const options = (Array.isArray(conflict) ? { conflictPaths: conflict } : conflict) as
      { conflictPaths?: string[] | object; returning?: unknown } | undefined;
    const paths: string[] = Array.isArray(options?.conflictPaths)
      ? (options.conflictPaths as string[])
      : Object.keys(options?.conflictPaths ?? {});
    if (!key || metadata.mapPropertyPathsToColumns(paths).includes(key.column))
      return upsert.call(manager, target, values, conflict);
    const returnKeys =
      options?.returning === undefined &&
      (this.dataSource.driver as { isReturningSqlSupported?: (kind: string) => boolean }).isReturningSqlSupported?.(
        'insert',
      ) === true;
    const result = await upsertKeepingKey(manager, key.column.databaseName, returnKeys, () =>
      upsert.call(manager, target, values, conflict),
    );
    const list: unknown[] = Array.isArray(values) ? values : [values];
    const rows = (returnKeys && Array.isArray(result.raw) ? result.raw : []) as Array<
      Record<string, unknown> | undefined
    >;
    // one row per value, in order, as TypeORM itself maps INSERT … RETURNING back to its entities
    if (rows.length !== list.length) return result;
    rows.forEach((row, i) => {
      const stored = row?.[key.column.databaseName];
      if (typeof stored !== 'string' && typeof stored !== 'number' && typeof stored !== 'bigint') return;
      const converted = this.#convert(key, BigInt(stored));
      if (typeof list[i] === 'object' && list[i] !== null) key.column.setEntityValue(list[i], converted);
      if (result.identifiers[i]) result.identifiers[i][key.column.propertyName] = converted;
    });
    return result;
  }

  #beforeInsert(event: InsertEvent<ObjectLiteral>): Promise<void> | undefined {
    const entity = event.entity as ObjectLiteral | undefined;
    const key = entity && this.#columns.get(event.metadata);
    if (!entity || !key) return undefined;
    // An INSERT of this object is on its way: from now on, saving it again must look at the table.
    forgetFresh(entity);
    if (key.column.getEntityValue(entity) != null) return undefined;
    return this.generator.next(key.segment).then(
      (next) => void key.column.setEntityValue(entity, this.#convert(key, next)),
      (error: unknown) => Promise.reject(this.#explainSqliteLock(error, event, key)),
    );
  }

  /**
   * On SQLite a reservation awaited inside a transaction that has written cannot get the file's one write
   * lock until that transaction ends: say so, rather than "could not be reached".
   */
  #explainSqliteLock(error: unknown, event: InsertEvent<ObjectLiteral>, key: KeyColumn): unknown {
    if (
      !(error instanceof HiLoExhaustedError) ||
      !isBetterSqlite(this.dataSource) ||
      !event.queryRunner.isTransactionActive
    )
      return error;
    return exhaustedErrors.sqliteLockedByTransaction(error, key.segment, key.column.entityMetadata.name);
  }

  #keyColumn(metadata: EntityMetadata): KeyColumn {
    const key = this.#columns.get(metadata);
    if (key) return key;
    throw configurationErrors.noKeyColumn(metadata.name);
  }

  #convert(key: KeyColumn, value: bigint): number | bigint {
    return keyToField(value, key.keyType, key.where, key.limits) as number | bigint;
  }
}

const hooked = new WeakSet<EntityManager>();

/**
 * TypeORM has no hook at `create()`: wrap the manager's method (repositories delegate to it). Loading
 * rows never goes through `create()`, so loaded entities consume no keys. `upsert()` is wrapped too, so that
 * a conflict keeps the stored key (see {@link HiLoTypeOrm.upsert}).
 */
function hookManager(manager: EntityManager): void {
  if (hooked.has(manager)) return;
  hooked.add(manager);
  const create = manager.create;
  const wrapped = function (this: EntityManager, target: EntityTarget<ObjectLiteral>, plain?: unknown) {
    const result: unknown = (create as (t: unknown, p?: unknown) => unknown).call(this, target, plain);
    const installation = installationOf(this);
    if (installation) installation.assignCreated(result, installation.dataSource.getMetadata(target));
    return result;
  };
  Object.defineProperty(manager, 'create', { value: wrapped, writable: true, configurable: true });
  const upsert = manager.upsert as Upsert;
  const upsertWrapped = function (
    this: EntityManager,
    target: EntityTarget<ObjectLiteral>,
    values: unknown,
    conflict: unknown,
  ) {
    const installation = installationOf(this);
    return installation
      ? installation.upsert(this, upsert, target, values, conflict)
      : upsert.call(this, target, values, conflict);
  };
  Object.defineProperty(manager, 'upsert', { value: upsertWrapped, writable: true, configurable: true });
}

const installationOf = (manager: EntityManager): HiLoTypeOrm | undefined =>
  installations.get(dataSourceOf(manager) as DataSource);

/** TypeORM's `EntityManager.upsert`, as hilo calls it. */
type Upsert = (
  this: EntityManager,
  target: EntityTarget<ObjectLiteral>,
  values: unknown,
  conflict: unknown,
) => Promise<InsertResult>;

const wrappedDataSources = new WeakSet<DataSource>();

/** Query runners and transactions get managers from `createEntityManager`: hook those too. */
function hookDataSource(dataSource: DataSource): void {
  if (wrappedDataSources.has(dataSource)) return;
  wrappedDataSources.add(dataSource);
  const createEntityManager = dataSource.createEntityManager;
  dataSource.createEntityManager = function (this: DataSource, ...args: Parameters<DataSource['createEntityManager']>) {
    const manager = createEntityManager.apply(this, args);
    hookManager(manager);
    return manager;
  };
  const destroy = dataSource.destroy;
  dataSource.destroy = async function (this: DataSource) {
    // Before the pool closes: returning unused keys needs the database.
    await installations.get(this)?.close();
    return destroy.call(this);
  };
}

function discoverKeyColumns(dataSource: DataSource): Map<EntityMetadata, KeyColumn> {
  const columns = new Map<EntityMetadata, KeyColumn>();
  for (const metadata of dataSource.entityMetadatas) {
    for (const column of metadata.columns) {
      const options =
        findHiLoColumn(column.target, column.propertyName) ??
        findHiLoColumn(metadata.target, column.propertyName) ??
        hiloColumnOptionsOf(column.transformer);
      if (!options) continue;
      const where = `${metadata.name}.${column.propertyName}`;
      if (!column.isPrimary || metadata.primaryColumns.length !== 1) {
        throw configurationErrors.keyNotOnlyPrimary(
          where,
          metadata.name,
          metadata.primaryColumns.map((c) => c.propertyName),
        );
      }
      if (column.isGenerated) {
        throw configurationErrors.keyDatabaseGenerated(where);
      }
      const segment = options.segment ?? metadata.tableName;
      const limits = {
        maxKey: columnTypeMaxKey(options.type)!,
        column: `a ${String(column.type)} column`,
        asBigint: "declare it with keyType: 'bigint'",
      };
      columns.set(metadata, { column, segment, blockSize: options.blockSize, keyType: options.keyType, where, limits });
    }
  }
  return columns;
}

/**
 * Join columns TypeORM derives from a relation to a hi/lo key (a `@ManyToOne` or `@TreeParent` without a
 * declared column, join and closure tables) copy the key's bigint type but not its transformer, so they read
 * back as strings where the key reads as a number: tree repositories then find no child of any parent, and
 * `@RelationId` gives strings. They get the key's transformer; a column you declared keeps what you gave it.
 */
function alignJoinColumns(dataSource: DataSource, columns: Map<EntityMetadata, KeyColumn>): void {
  const keys = new Map([...columns.values()].map((key) => [key.column, key.keyType]));
  for (const metadata of dataSource.entityMetadatas) {
    for (const column of metadata.columns) {
      const keyType = column.referencedColumn && keys.get(column.referencedColumn);
      const derived =
        metadata.isJunction ||
        metadata.isClosureJunction ||
        column.propertyName === column.relationMetadata?.propertyName;
      if (keyType && derived && !column.transformer) column.transformer = keyTransformer(keyType);
    }
  }
}

/**
 * Wires hilo into an initialized DataSource: finds the `@HiLoGeneratedColumn()` entities, reserves a block
 * for each segment on a connection of the DataSource's own pool, and from then on gives entities keys at
 * `create()` and, at the latest, just before INSERT. `dataSource.destroy()` closes it.
 * @example
 * ```ts
 * await dataSource.initialize();
 * await installHiLo(dataSource, { blockSize: 100 });
 * const order = dataSource.getRepository(Order).create({ total: 10 }); // order.id is set
 * ```
 */
export async function installHiLo(dataSource: DataSource, options: HiLoTypeOrmOptions = {}): Promise<HiLoTypeOrm> {
  validateOptions(options);
  if (!dataSource.isInitialized) {
    throw configurationErrors.notInitialized();
  }
  if (installations.has(dataSource)) {
    throw configurationErrors.alreadyInstalled();
  }
  const columns = discoverKeyColumns(dataSource);
  alignJoinColumns(dataSource, columns);
  const { warm = true, saveWithoutSelect = true } = options;
  const columnList = [...columns.values()];
  // reservations run on the user's client, else on the DataSource's pool, hilo's own connection to its SQLite
  // file (released with the generator), or for `:memory:` a counter in this process (sqlite-connection.ts)
  const connect = async (): Promise<AdapterConnection> => {
    if (!isBetterSqlite(dataSource)) return { client: dataSourceClient(dataSource) };
    const sqlite = await sqliteReservations(dataSource);
    if (sqlite.kind === 'file') return sqlite;
    const query = (sql: string, params: readonly unknown[]) => dataSource.query(sql, [...params]);
    return { inMemory: { owner: dataSource, query, database: 'The better-sqlite3 DataSource' } };
  };
  const supply = openKeySupply(options, {
    ...CHECKS,
    // where verified blocks probe: each key column's table, qualified by a PostgreSQL schema or a MySQL database
    columns: columnList.map(({ segment, column: { entityMetadata: metadata, databaseName } }) => ({
      segment,
      table: metadata.tableName,
      column: databaseName,
      schema: metadata.schema ?? metadata.database,
    })),
    limits: columnList.map(({ segment, blockSize, limits, where }) => ({
      segment,
      blockSize,
      maxKey: limits.maxKey,
      where,
    })),
    connect,
    keyGuard: false,
    schemaOption: "the entity's `schema`, or the DataSource's `schema` option",
  });
  const generator = (await supply.generator()) as HiLoGenerator<bigint>;
  const owned = { generator, close: () => supply.close() };
  try {
    if (warm && columns.size > 0) await generator.warm([...new Set(columnList.map((c) => c.segment))]);
  } catch (error) {
    await owned.close().catch(() => undefined);
    throw error;
  }
  // TypeORM's internals, where they are shaped as expected: faster saves, the same rows (typeorm-internals.ts)
  const shortcut = await prepareInternals(
    dataSource,
    [...columns.values()].map((key) => key.column),
    saveWithoutSelect,
  );
  const installation = new HiLoTypeOrm(dataSource, owned, columns, shortcut);
  hookDataSource(dataSource);
  installations.set(dataSource, installation);
  enableInternals(dataSource);
  installation.attach();
  return installation;
}

/**
 * The one-line wiring: returns the same DataSource, whose `initialize()` installs hilo (see
 * {@link installHiLo}) once the connection is up. Options are checked at once.
 * @example
 * ```ts
 * export const dataSource = withHiLo(new DataSource({ type: 'postgres', url, entities: [Order] }));
 * await dataSource.initialize(); // keys for Order are reserved
 * ```
 */
export function withHiLo<T extends DataSource>(dataSource: T, options: HiLoTypeOrmOptions = {}): T {
  validateOptions(options);
  const initialize = dataSource.initialize;
  dataSource.initialize = async function (this: T) {
    await initialize.call(this);
    try {
      await installHiLo(this, options);
    } catch (error) {
      await this.destroy().catch(() => undefined);
      throw error;
    }
    return this;
  };
  return dataSource;
}

/**
 * The hilo installation of a DataSource.
 * @example
 * ```ts
 * const id = await hiloOf(dataSource).next(Order);
 * ```
 */
export function hiloOf(dataSource: DataSource): HiLoTypeOrm {
  const installation = installations.get(dataSource);
  if (installation) return installation;
  throw configurationErrors.notInstalled();
}
