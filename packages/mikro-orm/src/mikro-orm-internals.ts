/**
 * Every use hilo-mikro-orm makes of MikroORM beyond its documented API, in one file. Each acts on the ORM
 * instance hilo is registered on, never on a prototype or another ORM of the process, and
 * {@link internalsProblem} checks the shapes they rely on, so a MikroORM whose internals moved fails at
 * registration with a message instead of misbehaving later. Two lines are supported, each with its own path
 * where they differ: 7.x (Kysely drivers, extensions registered before discovery) and 6.6 (knex drivers,
 * extensions registered once `init()` has discovered, connected and built `orm.em`).
 *
 * 1. The EntityManager class: on 7, the driver's `createEntityManager` is wrapped once, to learn the class the
 *    driver builds and register hilo's subclass of it through the public `entityManager` option (for
 *    `em.insert()`). On 6, `orm.em` already exists when hilo registers: the same option is set and that one
 *    instance gets the subclass's prototype (its forks are built from its constructor).
 * 2. A pool of its own with the ORM's settings. On 7, a second connection of the driver's own class, opened
 *    with the ORM's settings, hands over its native pool: the same TLS, credentials and driver options. On 6,
 *    a pool of the knex client's driver module built from that client's connection settings.
 * 3. Which database the ORM talks to, from its platform class; and, on SQLite, whether the ORM's own
 *    better-sqlite3 connection is inside a transaction (7: its `database` field; 6: the knex pool's resources).
 */
import { Utils, type EntityManager, type IDatabaseDriver, type MikroORM } from '@mikro-orm/core';
import { type SqlDialect } from 'hilo-core';
import { dialectOf } from 'hilo-core/adapter-kit';
import { configurationErrors } from './error-messages.js';

/** The ORM's driver: a public field on MikroORM 7, declared private (but there) on 6. */
export const driverOf = (orm: MikroORM): IDatabaseDriver => (orm as unknown as { driver: IDatabaseDriver }).driver;

/** The MikroORM major version whose internals this file was first written for. */
export const SUPPORTED_MAJOR = 7;
/** The oldest release of that line with every internal used here (7.2.0 added the connection's `getNativeClient()`). */
export const OLDEST_SUPPORTED = '7.2.0';
/** The oldest MikroORM 6 release hilo is tested with (the last of the 6.6 line). */
export const OLDEST_SUPPORTED_6 = '6.6.16';

/** The major version of the MikroORM loaded: 6 or 7 are supported. */
export function ormMajor(): number {
  return Number.parseInt(Utils.getORMVersion(), 10);
}

/**
 * Whether MikroORM registers extensions after `init()` has discovered entities, connected and built `orm.em`
 * (MikroORM 6), rather than in the constructor, before discovery (7).
 */
export function registersAfterInit(): boolean {
  return ormMajor() === 6;
}

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
  const major = ormMajor();
  if (major !== SUPPORTED_MAJOR && major !== 6)
    return `hilo-mikro-orm supports MikroORM 6.6 and ${SUPPORTED_MAJOR}.x, found ${version}`;
  if (major === 6 && version.localeCompare(OLDEST_SUPPORTED_6, undefined, { numeric: true }) < 0) {
    return `hilo-mikro-orm supports MikroORM 6 from ${OLDEST_SUPPORTED_6}, found ${version}`;
  }
  if (typeof (driverOf(orm) as unknown as Partial<DriverWithFactory>).createEntityManager !== 'function') {
    return `MikroORM ${version}'s driver has no createEntityManager()`;
  }
  const main = driverOf(orm).getConnection('write') as unknown as Partial<NativeConnection & KnexConnection>;
  for (const method of major === 6 ? (['getKnex'] as const) : (['connect', 'getNativeClient', 'close'] as const)) {
    if (typeof main[method] !== 'function')
      return `MikroORM ${version}'s ${main.constructor?.name ?? 'connection'} has no ${method}()`;
  }
  return undefined;
}

/** Throws a configuration error naming what is missing when {@link internalsProblem} finds something. */
export function requireInternals(orm: MikroORM): void {
  const problem = internalsProblem(orm);
  if (problem !== undefined) {
    throw configurationErrors.unsupportedRelease(problem, {
      oldest: OLDEST_SUPPORTED,
      major: SUPPORTED_MAJOR,
      oldest6: OLDEST_SUPPORTED_6,
    });
  }
}

/**
 * Registers, through the public `entityManager` option, the subclass `subclass(base)` of the EntityManager class
 * this ORM's driver builds: learned from the first EntityManager it creates (a user's own `entityManager`
 * class is kept as the base).
 */
export function subclassEntityManager(orm: MikroORM, subclass: (base: unknown) => unknown): void {
  const config = orm.config;
  if (registersAfterInit()) {
    // MikroORM 6 built orm.em before registering extensions: later EntityManagers come from the option, and
    // this one instance takes the subclass's prototype (forks are built from `em.constructor`).
    const em = (orm as { em?: EntityManager }).em;
    const base = config.get('entityManager') ?? em?.constructor;
    const cls = subclass(base) as { prototype: object };
    config.set('entityManager', cls as never);
    if (em) Object.setPrototypeOf(em, cls.prototype);
    return;
  }
  const driver = driverOf(orm) as unknown as DriverWithFactory;
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

/** The database family of the ORM's platform: hilo-core's dialect name. */
export type DatabaseKind = SqlDialect;

/**
 * The database family of the ORM's platform (`PostgreSqlPlatform`, `SqlitePlatform`, `MySqlPlatform`,
 * `MariaDbPlatform`). Throws a configuration error naming `client` for any other (MSSQL, libSQL, MongoDB):
 * hilo cannot open a connection of its own there.
 */
export function databaseKind(orm: MikroORM): DatabaseKind {
  const platform = driverOf(orm).getPlatform().constructor.name;
  return dialectOf(
    platform,
    () =>
      `hilo-mikro-orm opens its own connection on PostgreSQL, MariaDB/MySQL and SQLite, not on MikroORM's ` +
      `${platform}; pass one: \`HiLo.configure({ client })\` with a client from hilo-core on a database ` +
      `hilo supports.`,
  );
}

/** Whether the ORM's own SQLite connection is inside a transaction (read when asked: it is replaced on reconnect). */
export function ormSqliteInTransaction(orm: MikroORM): boolean {
  const connection = driverOf(orm).getConnection('write') as unknown as Partial<KnexConnection> & {
    database?: SqliteDatabaseState;
  };
  if (registersAfterInit() && typeof connection.getKnex === 'function') {
    // MikroORM 6: the knex client pools its better-sqlite3 Databases in a tarn pool
    const pool = connection.getKnex().client.pool;
    return [...(pool?.used ?? []), ...(pool?.free ?? [])].some(({ resource }) =>
      inTransaction(resource as SqliteDatabaseState | undefined),
    );
  }
  return inTransaction(connection.database);
}

interface SqliteDatabaseState {
  inTransaction?: boolean;
  isTransaction?: boolean;
}

const inTransaction = (database: SqliteDatabaseState | undefined): boolean =>
  database?.inTransaction === true || database?.isTransaction === true;

/** The part of a MikroORM 6 connection (knex) read here. */
interface KnexConnection {
  getKnex(): { client: KnexClientLike };
}

/** The part of a knex client read here: the driver module it loaded and the settings it connects with. */
interface KnexClientLike {
  driver?: unknown;
  connectionSettings?: unknown;
  pool?: { used?: Array<{ resource?: unknown }>; free?: Array<{ resource?: unknown }> };
}

/**
 * MikroORM 6: how hilo builds its own pool from the driver module a knex client loaded, for each database: a
 * `pg` Pool, a `mysql2` or `mariadb/callback` pool, or a better-sqlite3 Database (one connection, so `size`
 * is not read). Each gets the client's connection settings, `size` merged in; `undefined` when the module is
 * not one it can build from.
 */
const DRIVER_POOLS: Readonly<
  Record<DatabaseKind, (driver: unknown, connection: Record<string, unknown>, size: Record<string, unknown>) => unknown>
> = {
  postgres(driver, connection, size) {
    const Pool = (
      driver as { Pool?: new (options: object) => { on(event: string, listener: () => void): void } } | undefined
    )?.Pool;
    if (typeof Pool !== 'function') return undefined;
    const pool = new Pool({ ...connection, ...size });
    // an idle connection the server closes must not crash the process: the next reservation reconnects
    pool.on('error', () => undefined);
    return pool;
  },
  mysql(driver, connection, size) {
    const module = driver as { createPool?: (options: object) => unknown } | undefined;
    return typeof module?.createPool === 'function' ? module.createPool({ ...connection, ...size }) : undefined;
  },
  sqlite(driver, connection) {
    const Database = driver as (new (filename: string, options?: object) => unknown) | undefined;
    const filename = connection.filename;
    if (
      typeof Database !== 'function' ||
      typeof (Database.prototype as { prepare?: unknown } | undefined)?.prepare !== 'function' ||
      typeof filename !== 'string'
    )
      return undefined;
    return new Database(filename);
  },
};

/**
 * MikroORM 6: a pool of the ORM's own driver module (`pg`, `mysql2`, `mariadb/callback`, better-sqlite3), as
 * its knex client loaded it, built from the settings that client connects with (host, credentials, TLS and
 * driver options included) and sized by `size` (the driver's own option names: `{ max, min }` for `pg`,
 * `{ connectionLimit }` for the mysql2 family; a SQLite Database is one connection). Returns the native pool,
 * or on SQLite the Database. Throws a configuration error naming `client` for a driver or setting it cannot
 * reuse (the `sqlite3` driver of `@mikro-orm/sqlite` 6, a password callback).
 */
export function openDriverPool(orm: MikroORM, kind: DatabaseKind, size: Record<string, unknown>): unknown {
  const client = (driverOf(orm).getConnection('write') as unknown as KnexConnection).getKnex().client;
  const { driver, connectionSettings: settings } = client;
  const refuse = (why: string) =>
    configurationErrors.cannotOpenPool(Utils.getORMVersion(), driverOf(orm).constructor.name, why);
  if (typeof settings !== 'object' || settings === null)
    throw refuse('its connection settings are computed at connect time');
  // knex keeps the password as a hidden (non-enumerable) property of its settings: copy every own property
  const connection: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(settings))
    connection[name] = (settings as Record<string, unknown>)[name];
  const pool = DRIVER_POOLS[kind](driver, connection, size);
  if (pool === undefined)
    throw refuse(`its driver is not one hilo can open a pool of (pg, mysql2, mariadb, better-sqlite3)`);
  return pool;
}

const CONNECTION_SETTINGS = [
  'dbName',
  'clientUrl',
  'host',
  'port',
  'user',
  'password',
  'schema',
  'driverOptions',
] as const;

/**
 * A second connection of the driver's own class with the ORM's settings and `poolOptions` merged into its
 * driver options (unless the user's are not a plain object). It is opened as a read connection, which skips
 * the schema checks MikroORM runs when its main connection opens.
 */
export async function openOwnConnection(
  orm: MikroORM,
  poolOptions: Record<string, unknown>,
): Promise<{ connection: NativeConnection; native: unknown }> {
  const config = orm.config;
  const settings: Record<string, unknown> = {};
  for (const key of CONNECTION_SETTINGS) settings[key] = config.get(key);
  const driverOptions = settings.driverOptions;
  if (
    driverOptions === undefined ||
    (typeof driverOptions === 'object' &&
      driverOptions !== null &&
      Object.getPrototypeOf(driverOptions) === Object.prototype)
  ) {
    settings.driverOptions = { ...driverOptions, ...poolOptions };
  }
  const main = driverOf(orm).getConnection('write');
  const connection = new (main.constructor as ConnectionClass)(config, settings, 'read');
  try {
    await connection.connect({ skipOnConnect: true });
    return { connection, native: await connection.getNativeClient() };
  } catch (error) {
    await connection.close(true).catch(() => undefined);
    throw configurationErrors.cannotConnect(driverOf(orm).constructor.name, error);
  }
}
