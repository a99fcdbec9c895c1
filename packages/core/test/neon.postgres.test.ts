// Issue 54: Neon's serverless driver (`@neondatabase/serverless`). Its `Pool` speaks the PostgreSQL protocol over a
// WebSocket; here it reaches the test database through a loopback relay that stands in for Neon's proxy. hilo takes
// the pool as it takes pg's (`pgClient(pool)`): reservations on a connection of their own, never in the app's
// transaction, so a rolled-back transaction gives no key back, and two processes (two pools) never share a key.
import { Pool, neonConfig } from '@neondatabase/serverless';
import ws from 'ws';
import { describePostgres, startNeonRelay, type NeonRelay } from '@hilo/testing';
import { createHiLo, pgClient } from '../src/index.js';

describePostgres("hilo on Neon's serverless Pool (WebSocket, through a loopback relay)", (db) => {
  let relay: NeonRelay;
  // each test ends its pools: the database is dropped before this file's afterAll runs
  let pools: Pool[] = [];
  const neonPool = (): Pool => {
    const pool = new Pool({ connectionString: db.url, max: 4 });
    pools.push(pool);
    return pool;
  };
  afterEach(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    pools = [];
  });
  beforeAll(async () => {
    relay = await startNeonRelay();
    neonConfig.webSocketConstructor = ws;
    neonConfig.wsProxy = (host, port) => `127.0.0.1:${relay.port}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    neonConfig.pipelineTLS = false;
    const pool = new Pool({ connectionString: db.url });
    await pool.query('create table neon_orders (id bigint primary key, note text not null)');
    await pool.end();
  });
  afterAll(async () => {
    await relay.close();
  });

  it('two processes (a pool each) save 120 rows with keys from one store: none twice', async () => {
    const [a, b] = [neonPool(), neonPool()];
    const generators = [a, b].map((pool) => createHiLo({ client: pgClient(pool), blockSize: 10, keyType: 'bigint' }));
    try {
      await Promise.all(
        generators.map(async (hilo, i) => {
          const pool = i === 0 ? a : b;
          for (let n = 0; n < 60; n++) {
            const id = await hilo.next('neon_orders');
            await pool.query('insert into neon_orders (id, note) values ($1, $2)', [id, `process ${i}`]);
          }
        }),
      );
    } finally {
      await Promise.all(generators.map((hilo) => hilo.close()));
    }
    const { rows } = await a.query<{ n: string; d: string }>(
      'select count(*)::text as n, count(distinct id)::text as d from neon_orders',
    );
    expect(rows).toEqual([{ n: '120', d: '120' }]);
    // the keys really went over WebSockets through the relay
    expect(relay.accepted()).toBeGreaterThan(0);
  });

  it('keys used in a rolled-back transaction are never handed out again, even to a new process', async () => {
    const pool = neonPool();
    const first = createHiLo({ client: pgClient(pool), blockSize: 10, keyType: 'bigint' });
    const used: bigint[] = [];
    const connection = await pool.connect();
    try {
      await connection.query('begin');
      for (let i = 0; i < 3; i++) {
        const id = await first.next('neon_orders'); // reserved on hilo's own connection, committed at once
        used.push(id);
        await connection.query('insert into neon_orders (id, note) values ($1, $2)', [id, 'rolled back']);
      }
      await connection.query('rollback');
    } finally {
      connection.release();
      await first.close();
    }
    const second = createHiLo({ client: pgClient(neonPool()), blockSize: 10, keyType: 'bigint' });
    try {
      const next = await second.next('neon_orders');
      expect(next > used[used.length - 1]!).toBe(true);
      await pool.query('insert into neon_orders (id, note) values ($1, $2)', [next, 'saved']);
    } finally {
      await second.close();
    }
  });
});
