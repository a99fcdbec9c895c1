import type { DataSource } from 'typeorm';
import { HiLoConfigurationError, type SqlClient, type SqlExecutor, type SqlResult } from 'hilo-core';

// The subsets of the driver pools TypeORM holds that reservations need (declared by shape, not imported).
interface PgQueryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null; command?: string }>;
}
interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgQueryable & { release(error?: Error | boolean): void }>;
}
interface MysqlQueryable {
  query(sql: string, params?: unknown[]): Promise<[unknown, unknown]>;
}
interface MysqlPromisePoolLike extends MysqlQueryable {
  getConnection(): Promise<MysqlQueryable & { release(): void }>;
}
interface MysqlPoolLike {
  promise(): MysqlPromisePoolLike;
}

function pgResult<Row>(result: { rows: unknown[]; rowCount: number | null; command?: string }): SqlResult<Row> {
  return { rows: result.rows as Row[], affectedRows: result.command === 'SELECT' ? 0 : (result.rowCount ?? 0) };
}

function mysqlResult<Row>([rows]: [unknown, unknown]): SqlResult<Row> {
  if (Array.isArray(rows)) return { rows: rows as Row[], affectedRows: 0 };
  return { rows: [], affectedRows: (rows as { affectedRows?: number }).affectedRows ?? 0 };
}

/** A `SqlClient` over a pg pool: every statement on a pooled connection in autocommit. */
function pgPoolClient(pool: PgPoolLike): SqlClient {
  return {
    dialect: 'postgres',
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return pgResult<Row>(await pool.query(sql, [...params]));
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      let broken = false;
      try {
        await connection.query('BEGIN');
        const result = await work({
          async query<Row>(sql: string, params: readonly unknown[] = []) {
            return pgResult<Row>(await connection.query(sql, [...params]));
          },
        });
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        connection.release(broken);
      }
    },
    async close() {
      // The pool belongs to the DataSource; TypeORM closes it in destroy().
    },
  };
}

/** A `SqlClient` over a mysql2 pool (callback API, as TypeORM creates it). */
function mysqlPoolClient(callbackPool: MysqlPoolLike): SqlClient {
  const pool = callbackPool.promise();
  return {
    dialect: 'mysql',
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return mysqlResult<Row>(await pool.query(sql, [...params]));
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const connection = await pool.getConnection();
      try {
        await connection.query('START TRANSACTION');
        const result = await work({
          async query<Row>(sql: string, params: readonly unknown[] = []) {
            return mysqlResult<Row>(await connection.query(sql, [...params]));
          },
        });
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        connection.release();
      }
    },
    async close() {
      // The pool belongs to the DataSource; TypeORM closes it in destroy().
    },
  };
}

/**
 * Turns an initialized DataSource's driver pool into the `SqlClient` hi sources use. Reservations take their
 * own pooled connection and commit at once, so they never join a caller's transaction (a query runner holds
 * a connection checked out of the same pool).
 */
export function dataSourceClient(dataSource: DataSource): SqlClient {
  const type = dataSource.options.type;
  const driver = dataSource.driver as unknown as { master?: unknown; pool?: unknown; poolCluster?: unknown };
  if (type === 'postgres') {
    if (!driver.master) throw notConnected(type);
    return pgPoolClient(driver.master as PgPoolLike);
  }
  if (type === 'mysql' || type === 'mariadb') {
    if (driver.poolCluster && !driver.pool) {
      throw new HiLoConfigurationError(
        'hilo-typeorm cannot take reservations from a MySQL/MariaDB replication pool cluster; pass `client: await connect(masterUrl)` (from hilo-core) to installHiLo().',
      );
    }
    if (!driver.pool) throw notConnected(type);
    return mysqlPoolClient(driver.pool as MysqlPoolLike);
  }
  throw new HiLoConfigurationError(
    `hilo-typeorm takes reservations from postgres, mysql and mariadb DataSources by itself, got type ${JSON.stringify(type)}; ` +
      'pass a `client` of its own (a separate connection, never the one your transactions use) to installHiLo().',
  );
}

function notConnected(type: string): HiLoConfigurationError {
  return new HiLoConfigurationError(
    `The ${type} DataSource has no connection pool yet; call installHiLo() after \`await dataSource.initialize()\`, or wrap the DataSource with withHiLo().`,
  );
}
