// hilo.loadGraph() on MariaDB (multi-row INSERTs, run through Kysely's own connection: a connection Kysely holds for
// the load, or the transaction's): the shared suite.
import { createPool } from 'mysql2';
import { Kysely, MysqlDialect, type MysqlDialectConfig } from 'kysely';
import { describeMysql, runStatements } from '@hilo/testing';
import { hiloKysely } from 'hilo-kysely';
import { graphLoadSuite, type GraphDB } from './graph-load-suite.js';

describeMysql('hilo-kysely graph loads on MariaDB', (db) => {
  graphLoadSuite(
    async () => {
      const hilo = hiloKysely({
        url: db.url,
        blockSize: 20,
        tables: { orders: true, order_items: true, categories: true },
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
    },
    (statements) => runStatements(db.url, statements),
  );
});
