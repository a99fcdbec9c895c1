/**
 * Every use hilo-mikro-orm makes of MikroORM beyond its documented API, in one file. Each acts on the ORM
 * instance hilo is registered on, never on a prototype or another ORM of the process, and
 * {@link internalsProblem} checks the shapes they rely on, so a MikroORM whose internals moved fails at
 * registration with a message instead of misbehaving later.
 *
 * 1. The driver's `createEntityManager` is wrapped once, to learn the EntityManager class the driver builds
 *    and register hilo's subclass of it through the public `entityManager` option (for `em.insert()`).
 * 2. A second connection of the driver's own connection class, opened with the ORM's settings: reservations
 *    then run on a pool of their own with the same TLS, credentials and driver options.
 * 3. Which database the ORM talks to, from its platform class; and, on SQLite, whether the ORM's own
 *    better-sqlite3 connection is inside a transaction (its `database` field).
 */
import { Utils, type EntityManager, type MikroORM } from '@mikro-orm/core';
import { HiLoConfigurationError } from 'hilo-core';

/** The MikroORM major version these internals were written for and are tested with. */
export const SUPPORTED_MAJOR = 7;
/** The oldest release of that line with every internal used here (7.2.0 added the connection's `getNativeClient()`). */
export const OLDEST_SUPPORTED = '7.2.0';

/** The connection methods hilo calls on a connection of the driver's class. */
export interface NativeConnection {
  connect(options?: { skipOnConnect?: boolean }): Promise<void>;
  getNativeClient(): Promise<unknown>;
  close(force?: boolean): Promise<void>;
}

type ConnectionClass = new (config: unknown, options: unknown, type: 'read' | 'write') => NativeConnection;

interface DriverWithFactory {
  createEntityManager(useContext?: boolean): EntityManager;
}

/** What MikroORM the process runs, or why hilo cannot work with the internals it found; `undefined` when all is in place. */
export function internalsProblem(orm: MikroORM): string | undefined {
  const version = Utils.getORMVersion();
  const major = Number.parseInt(version, 10);
  if (major !== SUPPORTED_MAJOR) return `hilo-mikro-orm supports MikroORM ${SUPPORTED_MAJOR}.x, found ${version}`;
  if (typeof (orm.driver as unknown as Partial<DriverWithFactory>).createEntityManager !== 'function') {
    return `MikroORM ${version}'s driver has no createEntityManager()`;
  }
  const main = orm.driver.getConnection('write') as unknown as Partial<NativeConnection>;
  for (const method of ['connect', 'getNativeClient', 'close'] as const) {
    if (typeof main[method] !== 'function') return `MikroORM ${version}'s ${main.constructor?.name ?? 'connection'} has no ${method}()`;
  }
  return undefined;
}

/** Throws a configuration error naming what is missing when {@link internalsProblem} finds something. */
export function requireInternals(orm: MikroORM): void {
  const problem = internalsProblem(orm);
  if (problem !== undefined) {
    throw new HiLoConfigurationError(
      `${problem}; hilo-mikro-orm needs MikroORM ${OLDEST_SUPPORTED} or a later ${SUPPORTED_MAJOR}.x release (the range it is tested with): upgrade @mikro-orm/core and your driver.`,
    );
  }
}

/**
 * Registers, through the public `entityManager` option, the subclass `subclass(base)` of the EntityManager class
 * this ORM's driver builds: learned from the first EntityManager it creates (a user's own `entityManager`
 * class is kept as the base).
 */
export function subclassEntityManager(orm: MikroORM, subclass: (base: unknown) => unknown): void {
  const config = orm.config;
  const driver = orm.driver as unknown as DriverWithFactory;
  const createEntityManager = driver.createEntityManager.bind(driver);
  let subclassed = false;
  driver.createEntityManager = (useContext?: boolean) => {
    if (!subclassed) {
      subclassed = true;
      const base = config.get('entityManager') ?? createEntityManager(useContext).constructor;
      config.set('entityManager', subclass(base) as never);
    }
    return createEntityManager(useContext);
  };
}

/** The database family of the ORM's platform. */
export type DatabaseKind = 'postgres' | 'sqlite' | 'mysql';

/** PostgreSQL, SQLite, or (any other SQL platform MikroORM has: MariaDB, MySQL) the mysql2 family. */
export function databaseKind(orm: MikroORM): DatabaseKind {
  const platform = orm.driver.getPlatform().constructor.name.toLowerCase();
  return platform.includes('postgre') ? 'postgres' : platform.includes('sqlite') ? 'sqlite' : 'mysql';
}

/** Whether the ORM's own SQLite connection is inside a transaction (read when asked: it is replaced on reconnect). */
export function ormSqliteInTransaction(orm: MikroORM): boolean {
  const database = (orm.driver.getConnection('write') as { database?: { inTransaction?: boolean; isTransaction?: boolean } }).database;
  return database?.inTransaction === true || database?.isTransaction === true;
}

const CONNECTION_SETTINGS = ['dbName', 'clientUrl', 'host', 'port', 'user', 'password', 'schema', 'driverOptions'] as const;

/**
 * A second connection of the driver's own class with the ORM's settings and `poolOptions` merged into its
 * driver options (unless the user's are not a plain object). It is opened as a read connection, which skips
 * the schema checks MikroORM runs when its main connection opens.
 */
export async function openOwnConnection(orm: MikroORM, poolOptions: Record<string, unknown>): Promise<{ connection: NativeConnection; native: unknown }> {
  const config = orm.config;
  const settings: Record<string, unknown> = {};
  for (const key of CONNECTION_SETTINGS) settings[key] = config.get(key);
  const driverOptions = settings.driverOptions;
  if (driverOptions === undefined || (typeof driverOptions === 'object' && driverOptions !== null && Object.getPrototypeOf(driverOptions) === Object.prototype)) {
    settings.driverOptions = { ...(driverOptions as object | undefined), ...poolOptions };
  }
  const main = orm.driver.getConnection('write');
  const connection = new (main.constructor as ConnectionClass)(config, settings, 'read');
  try {
    await connection.connect({ skipOnConnect: true });
    return { connection, native: await connection.getNativeClient() };
  } catch (error) {
    await connection.close(true).catch(() => undefined);
    throw new HiLoConfigurationError(
      `hilo-mikro-orm could not open a connection of its own with the ${orm.driver.constructor.name}'s settings; pass one: \`HiLo.configure({ client })\` with pgClient, mysqlClient, sqliteClient or connect(url) from hilo-core.`,
      { cause: error },
    );
  }
}
