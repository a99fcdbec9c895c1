// postgresJsClient(): hilo on an app's own postgres.js instance (the `postgres` package), the PostgreSQL driver
// of Drizzle's `drizzle-orm/postgres-js` and of Kysely's postgres.js dialect. The sources' conformance and
// fault suites run on it too (sources-postgres-js.postgres.test.ts, fault.postgres-js.postgres.test.ts); this
// file covers the wrapper itself: what it hands hilo, what it refuses, and how postgres.js' own failures read.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import postgres from 'postgres';
import { describePostgres } from '@hilo/testing';
import {
  createHiLo,
  HiLoConfigurationError,
  postgresJsClient,
  tableSource,
  type PostgresJsSqlLike,
  type SqlClient,
} from '../src/index.js';
import { isTransientDriverError } from '../src/operations/driver-errors.js';

const quiet = { onnotice: () => undefined };
const signal = () => new AbortController().signal;

/** A loopback TCP server on a free port; resolves it with its port. */
async function listen(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describePostgres('postgresJsClient() on a postgres.js instance of the app', (db) => {
  let sql: ReturnType<typeof postgres>;
  let client: SqlClient;
  beforeAll(() => {
    sql = postgres(db.url, { max: 4, ...quiet });
    client = postgresJsClient(sql);
  });
  afterAll(async () => {
    await sql.end({ timeout: 1 });
  });

  it('serves keys from a sequence and from a hi table, and leaves the instance open when hilo closes', async () => {
    for (const source of ['sequence', 'table'] as const) {
      const hilo = createHiLo({ client, source, blockSize: 10, adaptive: false, keyType: 'bigint' });
      const keys = await Promise.all(Array.from({ length: 35 }, () => hilo.next(`pjs_${source}`)));
      expect(new Set(keys).size).toBe(35);
      await hilo.close();
    }
    // hilo did not open the instance: closing it (and the client) leaves the app's queries working
    await client.close();
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it('commits and rolls back transactions in sql.begin(), and reports affected rows, bigint parameters and driver errors', async () => {
    await client.query('create table pjs_rows (id bigint primary key, note text)');
    await client.transaction(async (tx) => {
      await tx.query('insert into pjs_rows values ($1, $2), ($3, $4)', [9_007_199_254_740_993n, 'kept', 1n, 'kept']);
    });
    await expect(
      client.transaction(async (tx) => {
        await tx.query('insert into pjs_rows values ($1, $2)', [2n, 'undone']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const { rows } = await client.query<{ id: string; note: string }>(
      'select id::text as id, note from pjs_rows order by id',
    );
    expect(rows).toEqual([
      { id: '1', note: 'kept' },
      { id: '9007199254740993', note: 'kept' },
    ]);
    expect(
      (await client.query('update pjs_rows set note = $1 where id in ($2, $3)', ['changed', 1n, 2n])).affectedRows,
    ).toBe(1);
    await expect(client.query('select * from pjs_no_such_table')).rejects.toMatchObject({ code: '42P01' });
  });

  it(
    'serves keys when the instance parses int8 as BigInt (`types: { bigint: postgres.BigInt }`), ' +
      'and without prepared statements (`prepare: false`, as behind PgBouncer in transaction mode)',
    async () => {
      const typed = postgres(db.url, { max: 2, types: { bigint: postgres.BigInt }, prepare: false, ...quiet });
      try {
        for (const source of ['sequence', 'table'] as const) {
          const hilo = createHiLo({
            client: postgresJsClient(typed),
            source,
            blockSize: 10,
            adaptive: false,
            keyType: 'bigint',
          });
          const keys = await Promise.all(Array.from({ length: 25 }, () => hilo.next(`pjs_typed_${source}`)));
          expect(new Set(keys).size).toBe(25);
          expect(keys.every((key) => typeof key === 'bigint' && key > 0n)).toBe(true);
          await hilo.close();
        }
      } finally {
        await typed.end({ timeout: 1 });
      }
    },
  );

  it('refuses an instance whose `transform` renames columns, naming the option, before anything runs', () => {
    const camel = postgres(db.url, { transform: postgres.camel, ...quiet });
    try {
      expect(() => postgresJsClient(camel)).toThrow(HiLoConfigurationError);
      expect(() => postgresJsClient(camel)).toThrow(/`transform` option rewrites columns and values/);
    } finally {
      void camel.end({ timeout: 0 });
    }
  });

  it('refuses what is not a postgres.js instance', () => {
    expect(() => postgresJsClient(undefined as unknown as PostgresJsSqlLike)).toThrow(HiLoConfigurationError);
    expect(() => postgresJsClient({ query: () => undefined } as unknown as PostgresJsSqlLike)).toThrow(
      /postgres\.js instance with unsafe\(\) and begin\(\)/,
    );
  });

  it('reads a connection the server closes during a statement (postgres.js CONNECTION_CLOSED) as transient', async () => {
    // a loopback proxy to the database that can close both sides gracefully (FIN, no reset)
    const target = new URL(db.url);
    const open = new Set<Socket>();
    const { server, port } = await listen((inbound) => {
      const outbound = createConnection(Number(target.port || 5432), target.hostname);
      inbound.pipe(outbound).pipe(inbound);
      for (const socket of [inbound, outbound]) {
        open.add(socket);
        socket.on('error', () => undefined).on('close', () => open.delete(socket));
      }
    });
    const url = new URL(db.url);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const proxied = postgres(url.toString(), { max: 1, ...quiet });
    try {
      const viaProxy = postgresJsClient(proxied);
      await viaProxy.query('select 1');
      const running = viaProxy.query('select pg_sleep(2)').then(
        () => undefined,
        (error: unknown) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (const socket of open) socket.end();
      const error = await running;
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
      expect(isTransientDriverError(error, 'postgres')).toBe(true);
    } finally {
      await proxied.end({ timeout: 0 });
      server.close();
    }
  });

  it(
    'turns a server that accepts but never answers (postgres.js CONNECT_TIMEOUT) into a retryable ' +
      'HiLoSourceUnavailableError',
    async () => {
      const { server, port } = await listen(() => undefined);
      const silent = postgres(`postgres://hilo@127.0.0.1:${port}/db`, { max: 1, connect_timeout: 0.3, ...quiet });
      try {
        const source = tableSource(postgresJsClient(silent));
        await expect(source.reserve('silent', { size: 10, signal: signal() })).rejects.toMatchObject({
          name: 'HiLoSourceUnavailableError',
          retryable: true,
        });
      } finally {
        await silent.end({ timeout: 0 });
        server.close();
      }
    },
  );
});
