// hilo.loadGraph() on PostgreSQL (binary COPY through the app's pg Pool): the shared suite, then what is PostgreSQL's
// own: withSchema(tenant) on a table registered with `tenants: '*'`, and the refusals — no pool, a pool of another
// database, a pool without pg-pool's list of connections inside a transaction (the shape pg-pool-clients.ts reads:
// this test fails when pg-pool changes it), and postgres.js, whose connections no pg Pool holds.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import { describePostgres, runStatements, usePostgresJs } from '@hilo/testing';
import { HiLoConfigurationError, hiloKysely } from 'hilo-kysely';
import { GRAPH_DDL, graphLoadSuite, orders, type GraphApp, type GraphDB } from './graph-load-suite.js';

describePostgres('hilo-kysely graph loads on PostgreSQL', (db) => {
  const open = async (): Promise<GraphApp & { pool: pg.Pool }> => {
    const hilo = hiloKysely({
      url: db.url,
      blockSize: 20,
      tables: { orders: { tenants: '*' }, order_items: { tenants: '*' }, categories: true },
    });
    const pool = new pg.Pool({ connectionString: db.url, max: 3 });
    const kysely = new Kysely<GraphDB>({ dialect: new PostgresDialect({ pool }), plugins: [hilo.plugin] });
    return {
      db: kysely,
      hilo,
      pool,
      driver: { pool },
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  };

  describe('the shared suite', () => {
    graphLoadSuite(open, (statements) => runStatements(db.url, statements));
  });

  describe('PostgreSQL only', () => {
    let app: GraphApp & { pool: pg.Pool };
    const sqlOf = usePostgresJs(db, []);
    beforeEach(async () => {
      await runStatements(db.url, GRAPH_DDL);
      app = await open();
    });
    afterEach(async () => {
      await app.close();
    });

    it('should load into the schema withSchema(tenant) names', async () => {
      await runStatements(db.url, [
        'drop schema if exists graph_tenant cascade',
        'create schema graph_tenant',
        'create table graph_tenant.orders (like public.orders including all)',
        `create table graph_tenant.order_items (like public.order_items including all,
           foreign key (order_id) references graph_tenant.orders (id))`,
      ]);
      const tenant = app.db.withSchema('graph_tenant');
      const input = orders(4, 2);
      await app.hilo.loadGraph(tenant, { pool: app.pool, tables: ['orders', 'order_items'], input });
      const { rows } = await app.pool.query<{ n: string }>(
        `select count(*) as n from graph_tenant.order_items i join graph_tenant.orders o on o.id = i.order_id`,
      );
      expect(Number(rows[0]!.n)).toBe(8);
      expect(Number((await app.pool.query<{ n: string }>('select count(*) as n from public.orders')).rows[0]!.n)).toBe(
        0,
      );
      // categories is registered without tenants: another schema is refused before anything is read
      await expect(app.hilo.loadGraph(tenant, { pool: app.pool, tables: ['categories'], input: [] })).rejects.toThrow(
        /registered as "categories"/,
      );
    });

    it('should refuse a load without the pool, with a pool of another database, or of another shape', async () => {
      const { db: kysely, hilo, pool } = app;
      const input = orders(1, 1);
      const tables = ['orders', 'order_items'] as const;
      await expect(hilo.loadGraph(kysely, { tables, input })).rejects.toThrow(/`pool`.*PostgresDialect.*postgres\.js/);
      const other = new pg.Pool({ connectionString: Object.assign(new URL(db.url), { pathname: '/postgres' }).href });
      try {
        const refused = hilo.loadGraph(kysely, { pool: other, tables, input });
        await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
        await expect(refused).rejects.toThrow(/`pool` does not reach the database/);
      } finally {
        await other.end();
      }
      const shapeless = { connect: () => pool.connect() };
      await expect(
        kysely.transaction().execute((trx) => hilo.loadGraph(trx, { pool: shapeless, tables, input })),
      ).rejects.toThrow(/pg-pool's list of connections \(`_clients`/);
      expect(Number((await pool.query<{ n: string }>('select count(*) as n from orders')).rows[0]!.n)).toBe(0);
    });

    it('should refuse postgres.js: no pg Pool holds its transaction’s connection', async () => {
      const pjs = new Kysely<GraphDB>({ dialect: new PostgresJSDialect({ postgres: sqlOf.sql() }) });
      const tables = ['orders'] as const;
      await expect(app.hilo.loadGraph(pjs, { tables, input: [] })).rejects.toThrow(/`pool`/);
      const inTransaction = pjs
        .transaction()
        .execute((trx) => app.hilo.loadGraph(trx, { pool: app.pool, tables, input: orders(1, 0) }));
      await expect(inTransaction).rejects.toBeInstanceOf(HiLoConfigurationError);
      await expect(inTransaction).rejects.toThrow(/not exactly one connection of `pool`/);
    });
  });
});
