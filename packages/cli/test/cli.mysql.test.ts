import mysql from 'mysql2/promise';
import { describeMysql } from '@hilo/testing';
import { cliSuite, type Execute } from './cli-suite.js';
import { ensureBuilt, removeBuilt } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);
afterAll(removeBuilt);

for (const source of ['table', 'sequence'] as const) {
  describeMysql(`mariadb: hilo command, ${source} source`, (db) => {
    const execute = (): Execute => async (sql) => {
      const connection = await mysql.createConnection({ uri: db.url });
      try {
        await connection.query(sql);
      } finally {
        await connection.end();
      }
    };
    cliSuite(db, source, execute);
  });
}
