import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { runHiSourceConformance } from '@hilo/testing';
import { HiLoSourceError, HiLoSourceUnavailableError } from '../src/errors.js';
import { connect } from '../src/operations/connect.js';
import { sqliteClient } from '../src/dialects/sqlite/client.js';
import { sqliteTableSource } from '../src/dialects/sqlite/table-source.js';
import { createHiLoGenerator } from '../src/index.js';

runHiSourceConformance({
  name: 'sqlite table',
  kind: 'sqlite',
  connect,
  makeSource: (client, { hostileName }) =>
    sqliteTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: {
    script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)),
    spec: { source: 'table', options: {} },
  },
  releases: true,
  checksIncrement: false,
});

describe('sqlite table: a reservation and another connection in the same thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-sqlite-lock-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the write lock only inside one statement, so a write from another connection between awaits never waits', async () => {
    const file = join(dir, 'app.db');
    const hiloDb = new Database(file);
    hiloDb.pragma('busy_timeout = 5000');
    const appDb = new Database(file);
    appDb.pragma('busy_timeout = 50'); // better-sqlite3 blocks the thread while it waits: keep it short
    appDb.exec('create table events (n integer)');
    const source = sqliteTableSource(sqliteClient(hiloDb));
    await source.prepare?.('orders', new AbortController().signal);
    let lockedBetweenTurns = 0;
    const failedWrites: string[] = [];
    try {
      for (let round = 0; round < 20; round++) {
        let done = false;
        const reservation = source
          .reserve('orders', { size: 10, signal: new AbortController().signal })
          .finally(() => (done = true));
        let turns = 0;
        while (!done && turns < 1000) {
          // between every two turns of the event loop, the application writes on its own connection
          if (hiloDb.inTransaction) lockedBetweenTurns++;
          try {
            appDb.prepare('insert into events (n) values (?)').run(round);
          } catch (error) {
            failedWrites.push((error as Error).message);
          }
          await Promise.resolve();
          turns++;
        }
        await reservation.catch((error: Error) => failedWrites.push(`reservation: ${error.message}`));
      }
      expect(failedWrites).toEqual([]);
      expect(lockedBetweenTurns).toBe(0);
      expect(appDb.prepare('select count(*) as c from events').get()).toMatchObject({ c: expect.any(Number) });
    } finally {
      appDb.close();
      hiloDb.close();
    }
  });

  it(
    'with lockHeldHere, fails at once (retryable, saying why) while this process holds the write ' +
      'lock, and waits for other holders',
    async () => {
      const file = join(dir, 'held.db');
      const appDb = new Database(file);
      const hiloDb = new Database(file);
      hiloDb.pragma('busy_timeout = 5000');
      const source = sqliteTableSource(
        sqliteClient(hiloDb, { lockHeldHere: () => appDb.inTransaction, busyTimeoutMs: 5000 }),
      );
      await source.prepare?.('orders', new AbortController().signal);
      appDb.exec('create table t (n integer)');
      try {
        appDb.exec('begin immediate'); // the application's transaction takes the write lock
        const failure = await source
          .reserve('orders', { size: 10, signal: new AbortController().signal })
          .catch((error: unknown) => error);
        // refused before the statement, not after the 5 s busy timeout (which would block the thread and end in
        // SQLITE_BUSY): the error says why, no duration is measured (issue #52)
        expect(failure).toBeInstanceOf(HiLoSourceUnavailableError);
        expect((failure as Error).message).toMatch(/write lock is held while a transaction of this process is open/);
        appDb.exec('commit');
        expect(await source.reserve('orders', { size: 10, signal: new AbortController().signal })).toHaveLength(1);
      } finally {
        if (appDb.inTransaction) appDb.exec('rollback');
        appDb.close();
        hiloDb.close();
      }
    },
  );

  it(
    'with lockHeldHere, a generator waits asynchronously, up to the busy timeout, for a lock another ' +
      'connection holds while the application has only begun a transaction',
    async () => {
      const file = join(dir, 'contended.db');
      const appDb = new Database(file);
      const otherDb = new Database(file); // stands for another process writing the same file
      const hiloDb = new Database(file);
      const client = sqliteClient(hiloDb, { lockHeldHere: () => appDb.inTransaction, busyTimeoutMs: 5000 });
      const generator = createHiLoGenerator({
        source: sqliteTableSource(client),
        blockSize: 10,
        adaptive: false,
        prefetchAt: false,
      });
      await generator.warm(['orders']);
      await generator.ensure('orders', 10); // the first block is in memory: the next key needs a reservation
      otherDb.exec('create table t (n integer)');
      try {
        appDb.exec('begin'); // deferred: the application's connection holds no lock yet
        otherDb.exec('begin immediate');
        otherDb.exec('insert into t (n) values (1)');
        const held = 2_500; // longer than a few quick retries, shorter than the busy timeout
        const released = new Promise<number>((resolve) =>
          setTimeout(() => {
            otherDb.exec('commit');
            resolve(performance.now());
          }, held),
        );
        const keys = await Promise.all(Array.from({ length: 11 }, () => generator.next('orders')));
        const keysAt = performance.now();
        const releasedAt = await released;
        expect(new Set(keys).size).toBe(11);
        // the eleventh key came from a reservation that committed only after the other connection did (an
        // ordering, not a duration: issue #52)
        expect(keysAt).toBeGreaterThanOrEqual(releasedAt);
        expect(generator.stats().orders?.failedAttempts).toBeGreaterThan(0); // it did find the file locked
        appDb.exec('commit');
      } finally {
        if (appDb.inTransaction) appDb.exec('rollback');
        if (otherDb.inTransaction) otherDb.exec('rollback');
        await generator.close();
        appDb.close();
        otherDb.close();
        hiloDb.close();
      }
    },
  );

  it(
    'with lockHeldHere, runs a transaction statement by statement, so the application can write ' +
      'between them, and refuses a second statement',
    async () => {
      const file = join(dir, 'statements.db');
      const appDb = new Database(file);
      const hiloDb = new Database(file);
      appDb.exec('create table t (n integer)');
      const client = sqliteClient(hiloDb, { lockHeldHere: () => appDb.inTransaction, busyTimeoutMs: 5000 });
      try {
        const failure = await client
          .transaction(async (tx) => {
            await tx.query('insert into t (n) values (1)');
            // the lock is not held across this await: the application's write on the same thread goes through (held,
            // it would block the thread for the busy timeout and then throw SQLITE_BUSY; no duration is measured)
            appDb.exec('insert into t (n) values (2)');
            await tx.query('insert into t (n) values (3)');
          })
          .catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(HiLoSourceError);
        expect((failure as Error).message).toMatch(/needs several in one transaction/);
        // the refused statement never ran
        expect(appDb.prepare('select n from t order by n').all()).toEqual([{ n: 1 }, { n: 2 }]);
      } finally {
        appDb.close();
        hiloDb.close();
      }
    },
  );

  it('refuses to reserve on a connection inside a transaction, which the reservation would join', async () => {
    const db = new Database(join(dir, 'shared.db'));
    const source = sqliteTableSource(sqliteClient(db));
    await source.prepare?.('orders', new AbortController().signal);
    db.exec('begin');
    try {
      await expect(source.reserve('orders', { size: 10, signal: new AbortController().signal })).rejects.toThrow(
        /inside a transaction, which a reservation would join/,
      );
    } finally {
      db.exec('rollback');
      db.close();
    }
  });
});
