import type { MikroORM } from '@mikro-orm/core';
import {
  createHiLo,
  createHiLoGenerator,
  mysqlClient,
  type MysqlCallbackPoolLike,
  pgClient,
  sqliteClient,
  type SqlClient,
} from 'hilo-core';
import { ownGenerator, privateDatabaseSource, refuseLayoutInMemory, segmentsForColumns, settlesWithin, type OwnedGenerator } from 'hilo-core/adapter-kit';
import type { HiLoOptions } from './options.js';
import { databaseKind, driverOf, openDriverPool, openOwnConnection, ormSqliteInTransaction, registersAfterInit } from './mikro-orm-internals.js';
import type { Generator, KeyColumn } from './runtime.js';

/**
 * Builds the generator for an ORM. Reservations run on `options.client` when given, else on a small pool of
 * their own opened with the ORM's own connection settings (same driver, host, credentials, TLS), so they
 * never share the EntityManager's transaction and never wait for one of its pooled connections.
 */
export async function createGeneratorFor(orm: MikroORM, options: HiLoOptions, columns: readonly KeyColumn[] = []): Promise<OwnedGenerator> {
  const { generator: _generator, client: given, source, table, schema, strategy, create, poolSize, ...rest } = options;
  const generatorOptions = { ...rest, segments: segmentsForColumns(columns, rest) };
  const client = given ?? (await clientFromOrm(orm, poolSize ?? 2, typeof rest.closeTimeoutMs === 'number' ? rest.closeTimeoutMs : 5000));
  if (client === 'memory') {
    refuseLayoutInMemory(options, "The ORM's SQLite database", 'HiLo.configure()');
    // An in-memory SQLite database is private to this process, so process memory is as good as a table;
    // its counters start above keys already stored. A connection not yet open is a database not yet written.
    const query = async (sql: string, params: readonly unknown[]) => {
      const connection = driverOf(orm).getConnection('write');
      return (await connection.isConnected()) ? ((await connection.execute(sql, [...params])) as Record<string, unknown>[]) : [];
    };
    return ownGenerator(() => createHiLoGenerator({ ...generatorOptions, source: privateDatabaseSource(orm, columns, query) } as never) as Generator, () => undefined);
  }
  const build = () => createHiLo({ ...generatorOptions, client, source, table, schema: schema ?? orm.config.get('schema'), strategy, create } as never) as Generator;
  // a client the user passed stays theirs; the pool opened here closes with the generator
  return ownGenerator(build, () => (given ? undefined : client.close()));
}

/**
 * A connection pool of its own with the ORM's settings (so TLS, credentials and driver options carry over) and
 * `poolSize` connections: on MikroORM 7 a second connection of the driver's class, on 6 a pool of the knex
 * client's driver module (see mikro-orm-internals.ts).
 */
async function clientFromOrm(orm: MikroORM, poolSize: number, closeTimeoutMs: number): Promise<SqlClient | 'memory'> {
  const kind = databaseKind(orm);
  // An in-memory SQLite database is private to its connection and to this process.
  if (kind === 'sqlite' && orm.config.get('dbName') === ':memory:') return 'memory';
  // SQLite has one writer, and the ORM's own connection lives on this thread: while it is inside a
  // transaction, waiting for the lock would block the thread that has to release it (read when asked: the
  // ORM's connection is replaced on reconnect). A driver that cannot tell keeps the plain busy timeout.
  const sqlite = (database: unknown, own: { ownsDatabase: true }) =>
    sqliteClient(database as never, { ...own, lockHeldHere: () => ormSqliteInTransaction(orm), busyTimeoutMs: 5000 });
  if (registersAfterInit()) {
    // MikroORM 6: a pool of the knex client's own driver module with its settings
    const opened = openDriverPool(orm, kind, poolSize);
    const client =
      opened.kind === 'postgres'
        ? pgClient(opened.pool as never, { ownsPool: true })
        : opened.kind === 'mysql'
          ? mysqlClient(opened.pool as MysqlCallbackPoolLike, { ownsPool: true })
          : sqlite(opened.database, { ownsDatabase: true });
    return { ...client, close: async () => void (await settlesWithin(client.close(), closeTimeoutMs)) };
  }
  // MikroORM sizes pools from the global `pool` option; driver options override it per connection.
  const size = kind === 'postgres' ? { max: poolSize, min: 0 } : kind === 'sqlite' ? { timeout: 5000 } : { connectionLimit: poolSize };
  const { connection, native } = await openOwnConnection(orm, size);
  // Kysely only adopts the pool on its first query, which never comes, so closing the connection would
  // leave the pool open: the client owns it.
  const own = { ownsPool: true, ownsDatabase: true } as const;
  let client: SqlClient;
  const driver = (typeof native === 'object' && native !== null ? native : {}) as { promise?: unknown; prepare?: unknown };
  if (typeof driver.promise === 'function') {
    client = mysqlClient(native as MysqlCallbackPoolLike, own); // mysql2 callback pool: MariaDB and MySQL
  } else if (typeof driver.prepare === 'function') {
    client = sqlite(native, own); // `database` is the better-sqlite3 Database of MikroORM's SqliteConnection
  } else {
    client = pgClient(native as never, own);
  }
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
