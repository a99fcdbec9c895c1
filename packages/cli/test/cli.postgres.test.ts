import pg from 'pg';
import { describePostgres } from '@hilo/testing';
import { cliSuite, type Execute } from './cli-suite.js';
import { ensureBuilt, removeBuilt } from './run-cli.js';

beforeAll(ensureBuilt, 120_000);
afterAll(removeBuilt);

for (const source of ['sequence', 'table'] as const) {
  describePostgres(`postgres: hilo command, ${source} source`, (db) => {
    const execute = (): Execute => async (sql) => {
      const client = new pg.Client(db.url);
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    cliSuite(db, source, execute);
  });
}
