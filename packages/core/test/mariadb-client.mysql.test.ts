// mariadbClient(): hilo on an app's own pool of the `mariadb` package (MariaDB Connector/Node.js, the driver of
// Prisma's @prisma/adapter-mariadb). The sources' conformance and fault suites run on it too
// (sources-mariadb-connector.mysql.test.ts, fault.mariadb.mysql.test.ts); this file covers the wrapper itself.
import mariadb from 'mariadb';
import { describeMysql, startFaultProxy } from '@hilo/testing';
import { withTimeout } from '../src/engine/deadline.js';
import {
  createHiLo,
  HiLoConfigurationError,
  mariadbClient,
  tableSource,
  type MariadbPoolLike,
  type SqlClient,
} from '../src/index.js';

const signal = () => new AbortController().signal;

describeMysql('mariadbClient() on a mariadb pool of the app', (db) => {
  let pool: ReturnType<typeof mariadb.createPool>;
  let client: SqlClient;
  beforeAll(() => {
    const url = new URL(db.url);
    pool = mariadb.createPool({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: url.username,
      database: url.pathname.slice(1),
      connectionLimit: 4,
    });
    client = mariadbClient(pool);
  });
  afterAll(async () => {
    await pool.end();
  });

  it(
    'serves keys from a hi table (the value from the OK packet) and a MariaDB sequence, and leaves ' +
      'the pool open when hilo closes',
    async () => {
      for (const source of ['table', 'sequence'] as const) {
        const hilo = createHiLo({ client, source, blockSize: 10, adaptive: false, keyType: 'bigint' });
        const keys = await Promise.all(Array.from({ length: 35 }, () => hilo.next(`mdb_${source}`)));
        expect(new Set(keys).size).toBe(35);
        expect(keys.every((key) => key > 0n)).toBe(true);
        await hilo.close();
      }
      await client.close();
      expect(await pool.query('select 1 as one')).toEqual([{ one: 1 }]);
    },
  );

  it('commits and rolls back transactions on one connection, and reports affected rows, bigint parameters and driver errors', async () => {
    await client.query('create table mdb_rows (id bigint primary key, note varchar(10))');
    await client.transaction(async (tx) => {
      await tx.query('insert into mdb_rows values (?, ?), (?, ?)', [9_007_199_254_740_993n, 'kept', 1n, 'kept']);
    });
    await expect(
      client.transaction(async (tx) => {
        await tx.query('insert into mdb_rows values (?, ?)', [2n, 'undone']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const { rows } = await client.query<{ id: unknown; note: string }>('select id, note from mdb_rows order by id');
    expect(rows.map((row) => [String(row.id), row.note])).toEqual([
      ['1', 'kept'],
      ['9007199254740993', 'kept'],
    ]);
    expect(
      (await client.query('update mdb_rows set note = ? where id in (?, ?)', ['changed', 1n, 2n])).affectedRows,
    ).toBe(1);
    await expect(client.query('select * from mdb_no_such_table')).rejects.toMatchObject({ code: 'ER_NO_SUCH_TABLE' });
  });

  it('refuses what is not a mariadb pool', () => {
    expect(() => mariadbClient(undefined as unknown as MariadbPoolLike)).toThrow(HiLoConfigurationError);
    expect(() => mariadbClient({ query: () => undefined } as unknown as MariadbPoolLike)).toThrow(
      /pool of the `mariadb` package/,
    );
  });

  it(
    'turns a pool that finds no connection in time (ER_GET_CONNECTION_TIMEOUT: a refused port) into ' +
      'a retryable HiLoSourceUnavailableError',
    async () => {
      const refused = mariadb.createPool({
        host: '127.0.0.1',
        port: 1,
        user: 'root',
        connectTimeout: 300,
        acquireTimeout: 500,
        connectionLimit: 1,
      });
      try {
        await expect(
          tableSource(mariadbClient(refused)).reserve('refused', { size: 10, signal: signal() }),
        ).rejects.toMatchObject({
          name: 'HiLoSourceUnavailableError',
          retryable: true,
        });
      } finally {
        await refused.end();
      }
    },
  );
  it(
    'drops a connection whose statement an attempt abandoned by closing its socket, without the second ' +
      "connection the connector's destroy() opens to KILL it (whose failure it leaves unhandled)",
    async () => {
      const proxy = await startFaultProxy(db.url);
      const url = new URL(proxy.url(db.url));
      // a connection of its own per statement (no pool that opens others ahead of need): each connection the proxy
      // accepts is one hilo asked for, or the KILL's
      const proxied: MariadbPoolLike = {
        query: () => Promise.reject(new Error('hilo takes a connection per statement')),
        getConnection: async () => {
          const connection = await mariadb.createConnection({
            host: url.hostname,
            port: Number(url.port),
            user: url.username,
            database: url.pathname.slice(1),
          });
          return {
            query: (sql: string, values?: unknown[]) => connection.query(sql, values),
            release: () => connection.end(),
            destroy: () => connection.destroy(),
            // the connector's types leave out the timeout its ping() takes (documented in its source)
            ping: (timeout?: number) => Reflect.apply(connection.ping, connection, [timeout]) as Promise<void>,
          };
        },
        end: async () => undefined,
      };
      try {
        const proxiedClient = mariadbClient(proxied);
        await proxiedClient.query('select 1 as one');
        const accepted = proxy.accepted;
        await expect(
          withTimeout(
            200,
            () => new Error('attempt abandoned'),
            () => proxiedClient.query('select sleep(5) as slept'),
          ),
        ).rejects.toThrow('attempt abandoned');
        // the abandoned connection's socket closes; the connector's KILL path would have opened (and used) another
        // connection through the proxy before closing it
        while (proxy.connections > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(proxy.accepted).toBe(accepted + 1);
        // the next statement is served
        expect((await proxiedClient.query<{ two: number }>('select 2 as two')).rows).toEqual([{ two: 2 }]);
      } finally {
        await proxy.close();
      }
    },
  );
});
