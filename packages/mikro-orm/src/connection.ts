import type { MikroORM } from '@mikro-orm/core';
import { mysqlClient, type MysqlCallbackPoolLike, pgClient, sqliteClient, type SqlClient } from 'hilo-core';
import {
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  PASSED_GENERATOR_OPTION_NAMES,
  openKeySupply,
  settlesWithin,
  type AdapterConnection,
  type OwnedGenerator,
} from 'hilo-core/adapter-kit';
import type { HiLoOptions } from './options.js';
import {
  databaseKind,
  driverOf,
  type DatabaseKind,
  openDriverPool,
  openOwnConnection,
  ormSqliteInTransaction,
  registersAfterInit,
} from './mikro-orm-internals.js';
import type { KeyColumn } from './runtime.js';

/** The option names of `HiLo.configure()`. */
const OPTION_NAMES: ReadonlySet<string> = new Set([
  // the options every adapter passes on (verifyBlocks, onMissingTable, …), and the two the others decide themselves
  ...PASSED_GENERATOR_OPTION_NAMES,
  'keyType',
  'idFormat',
  ...HI_SOURCE_LAYOUT_OPTION_NAMES,
  'generator',
  'client',
  'poolSize',
]);

/** How `HiLo.configure()`'s options are checked, at once and again by the key supply. */
export const CHECKS = { owner: 'HiLo.configure()', optionNames: OPTION_NAMES };

/**
 * Builds the generator for an ORM through hilo-core's key supply. Reservations run on `options.client` when
 * given, else on a small pool of their own opened with the ORM's own connection settings (same driver, host,
 * credentials, TLS), so they never share the EntityManager's transaction and never wait for one of its pooled
 * connections; an in-memory SQLite database keeps its counter in this process. A generator passed in is used as
 * it is, and stays open.
 */
export async function createGeneratorFor(
  orm: MikroORM,
  options: HiLoOptions,
  columns: readonly KeyColumn[] = [],
): Promise<OwnedGenerator> {
  const { poolSize, keyType, idFormat, closeTimeoutMs } = options;
  // an entity's table lies in its own schema, else in the ORM's `schema` (which MikroORM qualifies tables with)
  const ormSchema = orm.config.get('schema');
  const inOrmSchema = typeof ormSchema === 'string' ? ormSchema : undefined;
  const connect = async (): Promise<AdapterConnection> => {
    const client = await clientFromOrm(orm, poolSize ?? 2, typeof closeTimeoutMs === 'number' ? closeTimeoutMs : 5000);
    if (client !== 'memory') return { client, release: () => client.close() };
    // An in-memory SQLite database is private to this process, so process memory is as good as a table;
    // its counters start above keys already stored. A connection not yet open is a database not yet written.
    const query = async (sql: string, params: readonly unknown[]) => {
      const connection = driverOf(orm).getConnection('write');
      return (await connection.isConnected())
        ? ((await connection.execute(sql, [...params])) as Record<string, unknown>[])
        : [];
    };
    return { inMemory: { owner: orm, query, database: "The ORM's SQLite database" } };
  };
  // the hi table or sequences go to the ORM's schema too, unless the database is in memory and has none
  const inMemory =
    options.client === undefined && options.generator === undefined && OWN_CONNECTIONS[databaseKind(orm)].inMemory(orm);
  const supply = openKeySupply(
    { ...options, schema: options.schema ?? (inMemory ? undefined : inOrmSchema) },
    {
      ...CHECKS,
      columns: columns.map(({ segment, table, column, schema, kind, tenants }) => ({
        segment,
        table,
        column,
        ...(tenants === undefined ? { schema: schema ?? inOrmSchema } : { tenants }),
        kind,
      })),
      limits: columns,
      connect,
      generatorOptions: { keyType: keyType ?? 'number', idFormat },
      keyGuard: false,
      schemaOption: "the ORM's `schema` option or the entity's `schema`",
    },
  );
  return { generator: await supply.generator(), close: () => supply.close() };
}

/** How hilo's own connection is opened and wrapped on one database family the ORM may talk to. */
interface OwnConnection {
  /** Whether the ORM's database is in memory: private to its connection and to this process. */
  inMemory(orm: MikroORM): boolean;
  /**
   * The driver options of hilo's pool, `poolSize` connections: merged into the ORM's driver options on
   * MikroORM 7 (which sizes pools from the global `pool` option, overridden per connection by these), and
   * into the knex client's connection settings on 6 (where a SQLite Database is one connection).
   */
  driverOptions(poolSize: number): Record<string, unknown>;
  /** The client on the driver's native pool (SQLite: its Database), owning it: closing the client closes it. */
  client(native: unknown, orm: MikroORM): SqlClient;
}

/** Each database family's {@link OwnConnection}, looked up by the ORM's platform. */
const OWN_CONNECTIONS: Readonly<Record<DatabaseKind, OwnConnection>> = {
  postgres: {
    inMemory: () => false,
    driverOptions: (poolSize) => ({ max: poolSize, min: 0 }),
    client: (native) => pgClient(native as never, { ownsPool: true }),
  },
  mysql: {
    inMemory: () => false,
    driverOptions: (poolSize) => ({ connectionLimit: poolSize }),
    // a callback pool: mysql2 (MariaDB and MySQL), or on MikroORM 6 the `mariadb` connector's callback API
    client: (native) => mysqlClient(native as MysqlCallbackPoolLike, { ownsPool: true }),
  },
  sqlite: {
    inMemory: (orm) => orm.config.get('dbName') === ':memory:',
    driverOptions: () => ({ timeout: 5000 }),
    // SQLite has one writer, and the ORM's own connection lives on this thread: while it is inside a
    // transaction, waiting for the lock would block the thread that has to release it (read when asked: the
    // ORM's connection is replaced on reconnect). A driver that cannot tell keeps the plain busy timeout.
    // `native` is a better-sqlite3 Database (on MikroORM 7, the `database` of its SqliteConnection).
    client: (native, orm) =>
      sqliteClient(native as never, {
        ownsDatabase: true,
        lockHeldHere: () => ormSqliteInTransaction(orm),
        busyTimeoutMs: 5000,
      }),
  },
};

/**
 * A connection pool of its own with the ORM's settings (so TLS, credentials and driver options carry over) and
 * `poolSize` connections: on MikroORM 7 a second connection of the driver's class, on 6 a pool of the knex
 * client's driver module (see mikro-orm-internals.ts). `'memory'` for an in-memory SQLite database.
 */
async function clientFromOrm(orm: MikroORM, poolSize: number, closeTimeoutMs: number): Promise<SqlClient | 'memory'> {
  const kind = databaseKind(orm);
  const own = OWN_CONNECTIONS[kind];
  if (own.inMemory(orm)) return 'memory';
  if (registersAfterInit()) {
    // MikroORM 6: a pool of the knex client's own driver module with its settings
    const client = own.client(openDriverPool(orm, kind, own.driverOptions(poolSize)), orm);
    return { ...client, close: async () => void (await settlesWithin(client.close(), closeTimeoutMs)) };
  }
  const { connection, native } = await openOwnConnection(orm, own.driverOptions(poolSize));
  // Kysely only adopts the pool on its first query, which never comes, so closing the connection would
  // leave the pool open: the client owns it.
  const client = own.client(native, orm);
  const closeAll = async () => {
    try {
      await client.close();
    } finally {
      await connection.close().catch(() => undefined);
    }
  };
  // a statement stuck on a link that drops packets holds its pooled connection for ever: stop waiting
  // after closeTimeoutMs, so that orm.close() still settles
  return { ...client, close: async () => void (await settlesWithin(closeAll(), closeTimeoutMs)) };
}
