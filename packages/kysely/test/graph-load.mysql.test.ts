// hilo.loadGraph() on MariaDB (multi-row INSERTs, run through Kysely's own connection: a connection Kysely holds for
// the load, or the transaction's): the shared suite, and a load into a tenant's database through withSchema().
import { createPool } from 'mysql2';
import { Kysely, MysqlDialect, sql, type MysqlDialectConfig } from 'kysely';
import { describeMysql, randomName, runStatements } from '@hilo/testing';
import { hiloKysely } from 'hilo-kysely';
import { GRAPH_DDL, graphLoadSuite, orders, type GraphApp, type GraphDB } from './graph-load-suite.js';

describeMysql('hilo-kysely graph loads on MariaDB', (db) => {
  // tenants by name: MariaDB's catalog is the whole server's, so `'*'` would check other test files' tables too
  const open = async (tenants: string[] = []): Promise<GraphApp> => {
    const hilo = hiloKysely({
      url: db.url,
      blockSize: 20,
      tables: {
        orders: tenants.length === 0 ? true : { tenants },
        order_items: tenants.length === 0 ? true : { tenants },
        categories: true,
      },
    });
    const kysely = new Kysely<GraphDB>({
      dialect: new MysqlDialect({
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under Kysely 0.27 (kysely-compat)
        pool: createPool({ uri: db.url, connectionLimit: 3 }) as unknown as MysqlDialectConfig['pool'],
      }),
      plugins: [hilo.plugin],
    });
    return {
      db: kysely,
      hilo,
      driver: {},
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  };

  describe('the shared suite', () => {
    graphLoadSuite(
      () => open(),
      (statements) => runStatements(db.url, statements),
    );
  });

  it('should load into the database withSchema(tenant) names', async () => {
    await runStatements(db.url, GRAPH_DDL);
    const tenant = randomName('graph_tenant');
    await runStatements(db.url, [
      `create database ${tenant}`,
      `create table ${tenant}.orders (id bigint primary key, customer varchar(20) not null,
         status varchar(10) not null default 'new')`,
      `create table ${tenant}.order_items (id bigint primary key, order_id bigint not null, sku varchar(20) not null,
         qty int, foreign key (order_id) references ${tenant}.orders (id))`,
    ]);
    const app = await open([tenant]);
    try {
      await app.hilo.loadGraph(app.db.withSchema(tenant), { tables: ['orders', 'order_items'], input: orders(4, 2) });
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(`${tenant}.order_items`)} i
        join ${sql.table(`${tenant}.orders`)} o on o.id = i.order_id`.execute(app.db);
      expect(Number(rows[0]!.n)).toBe(8);
      const home = await app.db
        .selectFrom('orders')
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(home.n)).toBe(0);
    } finally {
      await app.close();
      await runStatements(db.url, [`drop database ${tenant}`]);
    }
  });
});
