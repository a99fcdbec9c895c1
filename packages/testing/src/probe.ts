import pg from 'pg';
import mysql from 'mysql2/promise';

/** Returns why PostgreSQL at `url` cannot be used, or undefined when it answers. */
export async function probePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${redact(url)} is unreachable: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Returns why MariaDB/MySQL at `url` cannot be used, or undefined when it answers. */
export async function probeMysql(url: string): Promise<string | undefined> {
  try {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 5000 });
    try {
      await connection.query('select 1');
    } finally {
      await connection.end();
    }
    return undefined;
  } catch (error) {
    return `MariaDB/MySQL at ${redact(url)} is unreachable: ${(error as Error).message}`;
  }
}

/** Hides the password in a database URL. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
