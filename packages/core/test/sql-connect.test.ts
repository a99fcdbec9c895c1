import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HiLoConfigurationError, HiLoNotReadyError, HiLoSourceError } from 'hilo-core';
import { connect } from '../src/operations/connect.js';
import { redactUrl } from '../src/sql/connect-support.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import { sqliteClient } from '../src/dialects/sqlite/client.js';
import { toHiLoError } from '../src/operations/driver-errors.js';
import { missingObjectHint } from '../src/errors.js';

const signal = new AbortController().signal;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hilo-sql-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('connect(url)', () => {
  it('should refuse an unknown scheme with a message listing the accepted ones, password hidden', async () => {
    const failure = connect('oracle://scott:tiger@db/x');
    await expect(failure).rejects.toThrow(HiLoConfigurationError);
    await expect(connect('oracle://scott:tiger@db/x')).rejects.toThrow(
      /postgres:\/\/.*sqlite:.*oracle:\/\/scott:\*\*\*@db\/x/,
    );
  });

  it('should refuse a sqlite URL without a file', async () => {
    await expect(connect('sqlite:')).rejects.toThrow(/sqlite:app\.db/);
  });

  it('should open a SQLite file that several clients share', async () => {
    const url = `sqlite:${join(dir, 'shared.db')}`;
    const [a, b] = [await connect(url), await connect(url)];
    try {
      const first = await tableSource(a).reserve('orders', { size: 10, signal });
      const second = await tableSource(b).reserve('orders', { size: 10, signal });
      expect(first).toEqual([{ first: 1n, last: 10n }]);
      expect(second).toEqual([{ first: 11n, last: 20n }]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("opens file: URLs (Prisma's and libSQL's form) as SQLite files, with their query string left out", async () => {
    const path = join(dir, 'prisma-style.db');
    for (const url of [`file:${path}?connection_limit=1`, `file://${path}`, `sqlite:${path}`]) {
      const client = await connect(url);
      try {
        await tableSource(client).reserve('orders', { size: 10, signal });
      } finally {
        await client.close();
      }
    }
    // the three URLs named one file: its hi row counted three blocks
    const db = new DatabaseSync(path);
    try {
      expect(db.prepare("select * from hilo_segments where segment = 'orders'").all()).toEqual([
        expect.objectContaining({ next_value: 31 }),
      ]);
    } finally {
      db.close();
    }
  });

  it('opens its own SQLite connection with the better-sqlite3 the app has, not a second copy of SQLite', async () => {
    // better-sqlite3 is installed here (TypeORM's, MikroORM's, Kysely's and Drizzle's SQLite driver): node:sqlite
    // beside it would be a second SQLite in the process, whose locks on the same file the other one releases
    expect(await import('better-sqlite3').then(() => true)).toBe(true);
    const client = await connect(`sqlite:${join(dir, 'driver.db')}`);
    await tableSource(client).reserve('orders', { size: 10, signal });
    await client.close();
    // better-sqlite3 refuses a statement on a closed database with a TypeError (node:sqlite with an Error whose code
    // is ERR_INVALID_STATE): the driver shows in the error hilo's client passes on
    const error = await client.query('select 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/not open/) as unknown });
    expect((error as { code?: unknown }).code).toBeUndefined();
  });

  it('refuses a folder (a PGlite data folder) and a libSQL server, each naming what to use', async () => {
    await expect(connect(`file:${dir}`)).rejects.toThrow(/names a folder, not a SQLite file.*pgliteClient\(db\)/s);
    await expect(connect('libsql://shop-acme.turso.io?authToken=secret')).rejects.toThrow(HiLoConfigurationError);
    await expect(connect('libsql://shop-acme.turso.io')).rejects.toThrow(/does not open libSQL servers.*"file:PATH"/s);
  });

  it('redacts passwords in URLs', () => {
    expect(redactUrl('postgres://app:secret@db:5432/shop')).toBe('postgres://app:***@db:5432/shop');
  });
});

describe('sqliteClient with node:sqlite', () => {
  it('should reserve through a DatabaseSync the same way as through better-sqlite3', async () => {
    const db = new DatabaseSync(join(dir, 'node-sqlite.db'));
    const client = sqliteClient(db, { ownsDatabase: true });
    try {
      const source = tableSource(client, { strategy: 'range' });
      expect(await source.reserve('orders', { size: 32, signal })).toEqual([{ first: 1n, last: 32n }]);
      expect(await source.release!('orders', { first: 2n, last: 32n })).toBe(true);
      expect(await source.reserve('orders', { size: 32, signal })).toEqual([{ first: 2n, last: 33n }]);
    } finally {
      await client.close();
    }
  });

  it('should refuse to reserve on a connection that is inside a transaction (it would join it)', async () => {
    const db = new DatabaseSync(join(dir, 'in-tx.db'));
    const client = sqliteClient(db, { ownsDatabase: true });
    try {
      const source = tableSource(client);
      await source.prepare('orders');
      db.exec('begin');
      await expect(source.reserve('orders', { size: 1, signal })).rejects.toThrow(/connection of its own/);
      db.exec('rollback');
      expect(await source.reserve('orders', { size: 1, signal })).toEqual([{ first: 1n, last: 1n }]);
    } finally {
      await client.close();
    }
  });

  it('should say how to fix a missing table when create is false', async () => {
    const client = await connect(`sqlite:${join(dir, 'empty.db')}`);
    try {
      await expect(tableSource(client, { create: false }).reserve('orders', { size: 1, signal })).rejects.toMatchObject(
        {
          code: 'HILO_SOURCE_FAILED',
          message: expect.stringMatching(/hilo init/),
        },
      );
    } finally {
      await client.close();
    }
  });

  it('should refuse sequences on SQLite', async () => {
    const client = await connect(`sqlite:${join(dir, 'seq.db')}`);
    try {
      expect(() => sequenceSource(client, { increment: 10 })).toThrow(/tableSource/);
    } finally {
      await client.close();
    }
  });
});

describe('driver errors', () => {
  it.each([
    [
      'postgres',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      true,
    ],
    ['postgres', Object.assign(new Error('could not serialize access'), { code: '40001' }), true],
    ['postgres', Object.assign(new Error('deadlock detected'), { code: '40P01' }), true],
    ['postgres', Object.assign(new Error('connection failure'), { code: '08006' }), true],
    ['postgres', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), true],
    ['postgres', new Error('Connection terminated unexpectedly'), true],
    ['postgres', Object.assign(new Error('syntax error'), { code: '42601' }), false],
    [
      'mysql',
      Object.assign(new Error('WSREP has not yet prepared node for application use'), {
        errno: 1047,
        code: 'ER_UNKNOWN_COM_ERROR',
      }),
      true,
    ],
    [
      'mysql',
      Object.assign(new Error('Got error 6 during COMMIT'), { errno: 1180, code: 'ER_ERROR_DURING_COMMIT' }),
      true,
    ],
    [
      'mysql',
      Object.assign(new Error('Lock wait timeout exceeded'), { errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' }),
      true,
    ],
    ['mysql', Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), true],
    ['mysql', Object.assign(new Error('Access denied'), { errno: 1045, code: 'ER_ACCESS_DENIED_ERROR' }), false],
    ['sqlite', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }), true],
  ] as const)('%s: %p → retryable: %s', (dialect, error, retryable) => {
    const converted = toHiLoError(error, { dialect, action: 'testing' });
    expect(converted.retryable).toBe(retryable);
    expect(converted.name).toBe(retryable ? 'HiLoSourceUnavailableError' : 'HiLoSourceError');
    expect(converted.cause).toBe(error);
  });

  it('mysql: a deadlock or a Galera certification conflict (1213) is a retryable conflict, not a server gone', () => {
    const error = Object.assign(new Error('Deadlock found'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' });
    const converted = toHiLoError(error, { dialect: 'mysql', action: 'testing' });
    expect(converted).toBeInstanceOf(HiLoSourceError);
    expect(converted.retryable).toBe(true);
    expect((converted as HiLoSourceError).conflict).toBe(true);
    expect(converted.cause).toBe(error);
  });

  it('says "run hilo init" for a missing table', () => {
    const error = Object.assign(new Error('relation "hilo_segments" does not exist'), { code: '42P01' });
    expect(toHiLoError(error, { dialect: 'postgres', action: 'testing' }).message).toMatch(/hilo init.*create: true/);
  });

  it('carries the fix as a structured hint: option names for library callers, commands for the CLI', () => {
    const error = Object.assign(new Error('relation "hilo_segments" does not exist'), { code: '42P01' });
    const converted = toHiLoError(error, {
      dialect: 'postgres',
      action: 'testing',
      missingHint: missingObjectHint('table "hilo_segments"', 'orders'),
    });
    expect(converted.problem).toBe(
      'A hi/lo table or sequence is missing while testing: relation "hilo_segments" does not exist.',
    );
    expect(converted.hint).toEqual({
      library: 'Run `hilo init orders` or pass `create: true` to create table "hilo_segments".',
      cli: 'Run `hilo init orders` to create table "hilo_segments".',
    });
    // the message is the problem followed by the library's wording, nothing else
    expect(converted.message).toBe(`${converted.problem} ${converted.hint!.library}`);
    // an adapter's error that words its own message (hilo-drizzle, hilo-kysely) has that message as its problem
    class AdapterNotReady extends HiLoNotReadyError {
      constructor() {
        super('orders');
        this.message = 'No key for segment "orders" is in memory for the adapter.';
      }
    }
    expect(new AdapterNotReady().problem).toBe('No key for segment "orders" is in memory for the adapter.');
  });
});
