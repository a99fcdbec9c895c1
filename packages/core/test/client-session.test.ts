// SqlClient.session on the pooled clients (pg, mysql2): every statement inside a session, a transaction's
// included, runs on the session's one connection, and only the session's end gives it back to the pool. A
// transaction inside a session used to hand the connection back at its commit while the session went on using
// it (node-postgres then threw "Release called on client which has already been released" when the session
// ended; mysql2 would have put one connection in the pool twice).
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describeDatabase, type TestDatabase } from '@hilo/testing';
import { mysqlClient, pgClient, type SqlClient } from 'hilo-core';

interface PoolView {
  client: SqlClient;
  /** Connections the pool holds idle now. */
  idle(): number;
  end(): Promise<void>;
}

const pools: Record<'postgres' | 'mysql', (url: string) => PoolView> = {
  postgres(url) {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pool.on('error', () => undefined);
    return { client: pgClient(pool), idle: () => pool.idleCount, end: () => pool.end() };
  },
  mysql(url) {
    const pool = mysql.createPool({ uri: url, connectionLimit: 3 });
    const internal = pool.pool as unknown as { _freeConnections: { length: number } };
    return { client: mysqlClient(pool), idle: () => internal._freeConnections.length, end: () => pool.end() };
  },
};

const connectionId: Record<'postgres' | 'mysql', string> = {
  postgres: 'select pg_backend_pid()::text as c',
  mysql: 'select cast(connection_id() as char) as c',
};

function suite(kind: 'postgres' | 'mysql', db: TestDatabase): void {
  let view: PoolView;
  beforeAll(() => {
    view = pools[kind](db.url);
  });
  afterAll(async () => {
    await view?.end();
  });

  const id = async (client: SqlClient) => (await client.query<{ c: string }>(connectionId[kind])).rows[0]!.c;

  it('keeps the connection through a transaction inside a session, and gives it back once, at the end', async () => {
    const { client } = view;
    const idleBefore = view.idle();
    const seen = await client.session!(async () => {
      const ids = [await id(client)];
      ids.push(await client.transaction(async (tx) => (await tx.query<{ c: string }>(connectionId[kind])).rows[0]!.c));
      // the committed transaction left the connection to the session: not in the pool while the session runs
      const idleDuring = view.idle();
      ids.push(await id(client));
      return { ids, idleDuring };
    });
    expect(new Set(seen.ids).size).toBe(1);
    expect(seen.idleDuring).toBe(Math.max(0, idleBefore - 1));
    // the session's end returned it, once: the pool holds it idle again, and only once
    await new Promise((resolve) => setImmediate(resolve));
    expect(view.idle()).toBe(Math.max(1, idleBefore));
    const concurrent = await Promise.all([id(client), id(client), id(client)]);
    expect(new Set(concurrent).size).toBe(3);
  });

  it('rolls back a failed transaction inside a session and goes on on the same connection', async () => {
    const { client } = view;
    const table = `session_tx_${kind}`;
    await client.query(`create table ${table} (id bigint primary key)`);
    await client.session!(async () => {
      const before = await id(client);
      await expect(
        client.transaction(async (tx) => {
          await tx.query(`insert into ${table} (id) values (1)`);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await id(client)).toBe(before);
    });
    expect((await client.query(`select id from ${table}`)).rows).toEqual([]);
  });
}

describeDatabase('postgres', 'pgClient sessions', (db) => suite('postgres', db));
describeDatabase('mysql', 'mysqlClient sessions', (db) => suite('mysql', db));
