// The messages of the errors hilo-typeorm throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids building them elsewhere.
import { HiLoConfigurationError, HiLoExhaustedError, HiLoOverflowError, HiLoSourceUnavailableError } from 'hilo-core';

/** The message for a DataSource of a type hilo cannot take reservations from by itself (also dialectOf()'s wording). */
export const unsupportedDataSourceMessage = (type: unknown): string =>
  `hilo-typeorm takes reservations from postgres, mysql, mariadb and better-sqlite3 DataSources ` +
  `by itself, got type ${JSON.stringify(type)}; ` +
  'pass a `client` on a connection of its own (never the one your transactions use) to installHiLo().';

/** Factories for the configuration errors the TypeORM adapter throws: one per mistake, named after it. */
export const configurationErrors = {
  /** installHiLo() was called before dataSource.initialize(). */
  notInitialized: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'installHiLo() needs an initialized DataSource; call it after `await dataSource.initialize()`, ' +
        'or wrap the DataSource with withHiLo() before initializing.',
    ),

  /** installHiLo() was called twice on one DataSource. */
  alreadyInstalled: (): HiLoConfigurationError =>
    new HiLoConfigurationError('hilo is already installed on this DataSource; call installHiLo() once per DataSource.'),

  /** hilo was asked for on a DataSource it is not installed on. */
  notInstalled: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'hilo is not installed on this DataSource; call installHiLo(dataSource) after initialize(), or use withHiLo().',
    ),

  /** A key was asked for an entity without a @HiLoGeneratedColumn(). */
  noKeyColumn: (entity: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Entity ${entity} has no @HiLoGeneratedColumn(); declare its primary key with @HiLoGeneratedColumn() to get hi/lo keys.`,
    ),

  /** @HiLoGeneratedColumn() on a column that is not the entity's only primary column. */
  keyNotOnlyPrimary: (where: string, entity: string, primaryColumns: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `@HiLoGeneratedColumn() on ${where} must be the entity's only primary column, but ${entity} has ` +
        `${primaryColumns.join(', ')}; remove the other primary ` +
        `columns or use a plain @Column() with hiloOf(dataSource).next().`,
    ),

  /** A @HiLoGeneratedColumn() that the database generates too. */
  keyDatabaseGenerated: (where: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${where} is both @HiLoGeneratedColumn() and database-generated (@Generated/@PrimaryGeneratedColumn); ` +
        `keep only @HiLoGeneratedColumn().`,
    ),

  /** @HiLoGeneratedColumn() compiled as a standard (TC39) decorator. */
  standardDecorator: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      '@HiLoGeneratedColumn() was compiled as a standard (TC39) decorator, but TypeORM needs legacy ' +
        'decorators; set "experimentalDecorators": true in the tsconfig.json your compiler or tsx uses.',
    ),

  /** @HiLoGeneratedColumn() on something else than a named instance property. */
  decoratorNotOnProperty: (propertyKey: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `@HiLoGeneratedColumn() goes on a named instance property of an entity class, got ${propertyKey}.`,
    ),

  /** `keyType: "bigint"` on a column of another type. */
  bigintKeyOnNarrowColumn: (where: string, type: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${where}: keyType "bigint" needs a bigint column, got type ${JSON.stringify(type)}; use type "bigint" or keyType "number".`,
    ),

  /** A key column returned a value that is not an integer. */
  keyNotInteger: (value: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `A hi/lo key column returned ${JSON.stringify(String(value))}, which is not an integer; hilo keys must be bigint or int columns.`,
    ),

  /** A row with a hi/lo key column is written through a DataSource hilo is not installed on. */
  notInstalledOnWrite: (where: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${where} is a hi/lo key, but a row is being written without one through a DataSource that hilo is ` +
        `not installed on, so nothing assigned it. Install hilo where the DataSource is created: ` +
        `\`withHiLo(new DataSource(options))\` before \`initialize()\` (import { withHiLo } from ` +
        `'hilo-typeorm'), or \`await installHiLo(dataSource)\` after it; with @nestjs/typeorm, ` +
        `\`dataSourceFactory: hiloDataSourceFactory()\` in TypeOrmModule.forRootAsync().`,
    ),

  /** hiloDataSourceFactory() got no DataSource options. */
  noDataSourceOptions: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'hiloDataSourceFactory() got no DataSource options: give TypeOrmModule.forRootAsync() a useFactory that returns them.',
    ),

  /** A DataSource whose pool is not open yet. */
  poolNotConnected: (type: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The ${type} DataSource has no connection pool yet; call installHiLo() after \`await dataSource.initialize()\`, ` +
        `or wrap the DataSource with withHiLo().`,
    ),

  /** A better-sqlite3 DataSource whose connection is not open yet. */
  sqliteNotConnected: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'The better-sqlite3 DataSource has no connection yet; call installHiLo() after `await dataSource.initialize()`, ' +
        'or wrap the DataSource with withHiLo().',
    ),

  /** A MySQL/MariaDB replication pool cluster, which has no one pool to reserve on. */
  poolCluster: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'hilo-typeorm cannot take reservations from a MySQL/MariaDB replication pool cluster; pass `client: ' +
        'await connect(primaryUrl)` (from hilo-core) to installHiLo().',
    ),

  /** A better-sqlite3 DataSource's one connection asked to serve reservations. */
  sqliteConnectionShared: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'A better-sqlite3 DataSource has one connection, which your transactions use, so it cannot serve ' +
        "reservations; installHiLo() opens hilo's own connection to the file by itself, or pass `client: " +
        "await connect('sqlite:app.db')` (from hilo-core).",
    ),

  /** A graph load reached an entity or relation it cannot write: `what` says which and why. */
  graphCannotLoad: (entity: string, what: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hiloOf(dataSource).loadGraph(): ${entity} ${what}. Nothing was written. Save such entities with ` +
        `save() (or leave them out of the graph, and out of its cascades).`,
    ),

  /** A graph load's entity already has a key (from create()), which a graph load would overwrite. */
  graphKeyGiven: (where: string, key: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hiloOf(dataSource).loadGraph(): ${where} is already ${String(key)} (create() gives keys); a graph load ` +
        `gives every entity its key itself. Build the graph with \`new Entity()\` or plain objects, or save() ` +
        `entities that already have keys.`,
    ),

  /** A graph load on a DataSource or connection it has no bulk path for. */
  graphUnsupported: (what: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hiloOf(dataSource).loadGraph(): ${what}. Graph loads write on postgres (pg), mysql/mariadb and ` +
        `better-sqlite3 DataSources, outside a transaction or inside one of dataSource.transaction() or a ` +
        `QueryRunner's; use save() for this one.`,
    ),

  /** On SQLite a load's batch needs keys not in memory; reserving them would wait on the load's own write lock. */
  graphSqliteKeysNotInMemory: (segment: string, needed: number, available: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hiloOf(dataSource).loadGraph() on SQLite: a batch needs ${needed} keys of segment "${segment}" and ` +
        `${available} are in memory. The load holds SQLite's one write lock until it ends, so hilo, which reserves ` +
        `on a connection of its own, cannot reserve during it. Pass the roots as an array (hilo then reserves ` +
        `before the load), or first await hiloOf(dataSource).ensure(Entity, rows) for each entity of the graph.`,
    ),

  /** A DataSource of a type hilo cannot take reservations from by itself. */
  unsupportedDataSource: (type: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(unsupportedDataSourceMessage(type)),

  /** An upsert whose conflicting row's stored hi/lo key hilo cannot keep. */
  upsertRefused: (why: string, options?: { cause?: unknown }): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo-typeorm cannot keep the stored hi/lo key of a conflicting row in upsert(): ${why}. ` +
        'Upsert on the key column (conflictPaths naming the primary key), or use a TypeORM release of the peer range.',
      options,
    ),
};

/** Factories for the hi source failures the TypeORM adapter reports: one per failure, named after it. */
export const sourceErrors = {
  /** hilo's own connection to the DataSource's SQLite file could not be opened. */
  cannotOpenSqliteFile: (file: string, error: unknown): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `hilo cannot open its own connection to the SQLite file "${file}" that the DataSource ` +
        `uses: ${(error as Error).message}. ` +
        'Check that the file is writable by this process, or pass `client` to installHiLo().',
      { cause: error },
    ),
};

/** Factories for the keys the TypeORM adapter cannot convert: one per mistake, named after it. */
export const overflowErrors = {
  /** A stored key beyond Number.MAX_SAFE_INTEGER read into a `keyType: 'number'` column. */
  keyBeyondSafeInteger: (key: bigint): HiLoOverflowError =>
    new HiLoOverflowError(
      `Key ${key} is beyond Number.MAX_SAFE_INTEGER; declare the column with keyType: 'bigint' (and ` +
        `hiloBigIntKeyTransformer on foreign keys).`,
    ),
};

/** Factories for the reservations the TypeORM adapter explains when they ran out of retries. */
export const exhaustedErrors = {
  /**
   * On SQLite, a reservation inside a transaction that has written waits for the file's one write lock that
   * transaction holds: `error` with the reason and the fix added.
   */
  sqliteLockedByTransaction: (error: HiLoExhaustedError, segment: string, entity: string): HiLoExhaustedError =>
    new HiLoExhaustedError(
      `${error.message} SQLite lets one connection write at a time; if this transaction on the DataSource's ` +
        `connection has written, the reservation for segment "${segment}" ` +
        `can only run after it ends. Take keys before the transaction ` +
        `(\`await hiloOf(dataSource).next(${entity})\`, ` +
        `or \`await hiloOf(dataSource).ensure(${entity}, n)\` for n rows), or ` +
        `give the segment a blockSize above the rows one transaction creates.`,
      { cause: error },
    ),
};
