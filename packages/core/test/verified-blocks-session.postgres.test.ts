// A verified reservation is the reservation plus probes of the key tables. Where hilo shares the application's
// pool (TypeORM), transactions that hold every other connection while they wait for keys must not starve the
// probe: the reservation and its probes run on one connection, taken once (SqlClient.session).
import pg from 'pg';
import { describeDatabase, randomName } from '@hilo/testing';
import { createHiLo, pgClient } from 'hilo-core';

describeDatabase('postgres', 'verified reservations on a shared pg pool', (db) => {
  it('take one pooled connection per reservation, for the reservation and every probe', async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 3 });
    // an idle connection the server drops (the test database is dropped with force) must not crash the process
    pool.on('error', () => undefined);
    let acquired = 0;
    pool.on('acquire', () => acquired++);
    const client = pgClient(pool);
    const segment = randomName('s');
    try {
      for (const table of ['a', 'b']) await pool.query(`create table ${segment}_${table} (id bigint primary key)`);
      const hilo = createHiLo({
        client,
        keyType: 'bigint',
        blockSize: 10,
        adaptive: false,
        prefetchAt: false,
        storedKeys: [
          { segment, table: `${segment}_a`, column: 'id' },
          { segment, table: `${segment}_b`, column: 'id' },
        ],
      });
      await hilo.warm([segment]);
      for (let round = 0; round < 3; round++) {
        const before = acquired;
        // a reservation of 20 keys: two blocks, a nextval and two probes per block
        expect(await hilo.reserve(segment, 20)).toHaveLength(20);
        expect(acquired - before).toBe(1);
      }
      await hilo.close();
    } finally {
      await pool.end();
    }
  });

  it('go on when the application takes the pool connection the moment a statement of the reservation gives it back', async () => {
    // one connection: if the probe needed its own checkout after the reservation's statement, the application's
    // transaction (which waits for keys) would get the connection first and the probe would wait for ever
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    const client = pgClient(pool);
    const segment = randomName('s');
    try {
      await pool.query(`create table ${segment}_rows (id bigint primary key)`);
      const hilo = createHiLo({
        client,
        keyType: 'bigint',
        blockSize: 5,
        adaptive: false,
        prefetchAt: false,
        timeoutMs: 3000,
        retryBudgetMs: 0,
        storedKeys: [{ segment, table: `${segment}_rows`, column: 'id' }],
      });
      await hilo.warm([segment]);
      // the warm block in memory first: the next key needs a reservation
      expect(await hilo.reserve(segment, 5)).toHaveLength(5);
      let app: Promise<pg.PoolClient> | undefined;
      pool.once('release', () => {
        app = pool.connect();
      });
      const keys = await hilo.reserve(segment, 5);
      expect(keys).toHaveLength(5);
      expect(app).toBeDefined();
      const transaction = await app!;
      try {
        await transaction.query('begin');
        await transaction.query(`insert into ${segment}_rows (id) values ($1)`, [String(keys[0])]);
        await transaction.query('commit');
      } finally {
        transaction.release();
      }
      await hilo.close();
    } finally {
      await pool.end();
    }
  });
});
