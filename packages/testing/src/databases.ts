import { randomBytes } from 'node:crypto';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { describeMissingPeer } from './missing-peer.ts';
import { defaultMysqlUrlHint, envKeys } from './environment.ts';

/** The database a test file gets: fresh, randomly named, dropped after the file's tests. */
export interface TestDatabase {
  /** The dialect of this database. */
  readonly kind: 'postgres' | 'mysql';
  /** URL of the fresh database; valid inside `it`/`beforeAll` blocks. */
  readonly url: string;
  /** Its name. */
  readonly name: string;
}

/** Random lowercase identifier with a recognisable prefix. */
export function randomName(prefix = 'hilo_t'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates a fresh PostgreSQL database on `HILO_PG_URL`; returns its URL and a drop function. */
export async function createPostgresDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = requiredUrl('postgres');
  const name = randomName();
  const client = new pg.Client(admin);
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return {
    url: withDatabase(admin, name),
    name,
    async drop() {
      const c = new pg.Client(admin);
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Creates a fresh MariaDB/MySQL database on `HILO_MYSQL_URL`; returns its URL and a drop function. */
export async function createMysqlDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = requiredUrl('mysql');
  const name = randomName();
  const connection = await mysql.createConnection({ uri: admin });
  try {
    await connection.query(`create database \`${name}\``);
  } finally {
    await connection.end();
  }
  return {
    url: withDatabase(admin, name),
    name,
    async drop() {
      const c = await mysql.createConnection({ uri: admin });
      try {
        await c.query(`drop database if exists \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}

/** Why the database of this kind cannot be used in this run, or undefined when it can. */
export function databaseProblem(kind: 'postgres' | 'mysql'): string | undefined {
  if (kind === 'postgres') {
    return (
      process.env[envKeys.pgProblem] ??
      (process.env[envKeys.pgUrl] ? undefined : 'HILO_PG_URL is not set and no embedded PostgreSQL runs')
    );
  }
  return (
    process.env[envKeys.mysqlProblem] ??
    (process.env[envKeys.mysqlUrl]
      ? undefined
      : `HILO_MYSQL_URL is not set (e.g. HILO_MYSQL_URL=${defaultMysqlUrlHint})`)
  );
}

function requiredUrl(kind: 'postgres' | 'mysql'): string {
  const url = process.env[kind === 'postgres' ? envKeys.pgUrl : envKeys.mysqlUrl];
  if (!url) throw new Error(databaseProblem(kind));
  return url;
}

/**
 * `describe` for tests that need a fresh database of `kind`. The callback receives a handle whose `url`
 * points at a database created before the block's tests and dropped after them.
 * When the database is unavailable: with `CI=true` the block fails with the reason; elsewhere it is
 * skipped with a one-line hint on how to enable it.
 */
export function describeDatabase(kind: 'postgres' | 'mysql', title: string, body: (db: TestDatabase) => void): void {
  const problem = databaseProblem(kind);
  if (problem) {
    const placeholder = { kind, url: '', name: '' };
    describeMissingPeer({ needs: kind, skipping: `${kind} tests`, problem, placeholder }, title, body);
    return;
  }
  const handle = { kind, url: '', name: '' };
  let drop: (() => Promise<void>) | undefined;
  describe(title, () => {
    beforeAll(async () => {
      const created = kind === 'postgres' ? await createPostgresDatabase() : await createMysqlDatabase();
      handle.url = created.url;
      handle.name = created.name;
      drop = created.drop;
    });
    afterAll(async () => {
      await drop?.();
    });
    body(handle);
  });
}

/** `describeDatabase('postgres', …)`. */
export const describePostgres = (title: string, body: (db: TestDatabase) => void): void =>
  describeDatabase('postgres', title, body);

/** `describeDatabase('mysql', …)`. */
export const describeMysql = (title: string, body: (db: TestDatabase) => void): void =>
  describeDatabase('mysql', title, body);

/**
 * What hilo and an app left in one PostgreSQL database: how many sequences it holds, and how many rows `table`
 * has (-1 when there is no such table). For tests that must prove a database (a replica) received nothing.
 */
export async function postgresContents(url: string, table: string): Promise<{ sequences: number; rows: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sequences = Number(
      (await client.query<{ n: string }>(`select count(*) as n from pg_class where relkind = 'S'`)).rows[0]!.n,
    );
    const exists =
      (await client.query<{ t: string | null }>('select to_regclass($1) as t', [table])).rows[0]!.t !== null;
    const rows = exists
      ? Number(
          (await client.query<{ n: string }>(`select count(*) as n from "${table.replace(/"/g, '""')}"`)).rows[0]!.n,
        )
      : -1;
    return { sequences, rows };
  } finally {
    await client.end();
  }
}
