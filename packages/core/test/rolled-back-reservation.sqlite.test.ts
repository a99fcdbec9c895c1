// Issue 54: a reservation that runs inside the application's transaction (a SqlClient of the user's that shares the
// application's connection, as kysely-pglite's did) is undone when that transaction rolls back, and the store hands
// the same block out again. In the process that reserved it, hilo refuses that block before any key of it, and the
// error says what happened: a reservation rolled back with a transaction it ran in (or a change by hand), and the fix.
import { DatabaseSync } from 'node:sqlite';
import { HiLoSourceError, createHiLo, sqliteClient, type SqlClient } from '../src/index.js';

/** A client that runs hilo's reservations inside whatever transaction the application's connection has open. */
function joiningClient(db: DatabaseSync): SqlClient {
  const own = sqliteClient(db);
  return {
    dialect: 'sqlite',
    query: (sql, params) => own.query(sql, params),
    async transaction(work) {
      db.exec('savepoint joined');
      try {
        const result = await work({ query: (sql, params) => own.query(sql, params) });
        db.exec('release joined');
        return result;
      } catch (error) {
        db.exec('rollback to joined');
        db.exec('release joined');
        throw error;
      }
    },
    close: () => Promise.resolve(),
  };
}

describe('a reservation rolled back with the application transaction it ran in', () => {
  it('is refused when the store hands its block out again, and the error names the rollback and the fix', async () => {
    const db = new DatabaseSync(':memory:');
    const hilo = createHiLo({
      client: joiningClient(db),
      source: 'table',
      blockSize: 10,
      prefetchAt: false,
      adaptive: false,
    });
    try {
      await hilo.warm(['orders']); // block 1…10, committed
      for (let i = 0; i < 10; i++) await hilo.next('orders');
      db.exec('begin');
      const inTransaction = await hilo.next('orders'); // block 11…20, reserved inside the application's transaction
      expect(inTransaction).toBe(11);
      db.exec('rollback'); // … and undone with it
      for (let i = 0; i < 9; i++) await hilo.next('orders'); // the rest of the block in hand: 12…20
      const refused = await hilo.next('orders').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(HiLoSourceError);
      expect((refused as Error).message).toMatch(
        /block \[11, 20\].*not above key 20 already reserved by this process.*rolled back with a transaction of yours/s,
      );
      expect((refused as Error).message).toMatch(/connection of its own.*hilo floor/s);
    } finally {
      await hilo.close();
      db.close();
    }
  });
});
