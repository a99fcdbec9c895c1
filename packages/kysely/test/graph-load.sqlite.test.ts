// hilo.loadGraph() on SQLite (prepared multi-row INSERTs on the better-sqlite3 Database the app gave SqliteDialect,
// while Kysely holds its one connection): the shared suite, and the refusals of a load without that database or with
// another one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { HiLoConfigurationError, hiloKysely } from 'hilo-kysely';
import { graphLoadSuite, orders, type GraphApp, type GraphDB } from './graph-load-suite.js';

describe('hilo-kysely graph loads on SQLite', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-kysely-graph-'));
    file = join(dir, 'graph.db');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const open = async (): Promise<GraphApp> => {
    const database = new Database(file, { timeout: 10_000 });
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = on');
    const hilo = hiloKysely({
      url: `sqlite:${file}`,
      blockSize: 20,
      tables: { orders: true, order_items: true, categories: true },
    });
    const kysely = new Kysely<GraphDB>({ dialect: new SqliteDialect({ database }), plugins: [hilo.plugin] });
    return {
      db: kysely,
      hilo,
      driver: { database },
      keysFirst: true,
      async close() {
        await hilo.close();
        await kysely.destroy();
      },
    };
  };
  const runDdl = (statements: string[]) => {
    const setup = new Database(file);
    try {
      for (const statement of statements) setup.exec(statement);
    } finally {
      setup.close();
    }
    return Promise.resolve();
  };

  describe('the shared suite', () => {
    graphLoadSuite(open, runDdl);
  });

  it('should refuse a load without the database, or with another one than Kysely’s', async () => {
    const app = await open();
    const other = new Database(join(dir, 'other.db'));
    try {
      const tables = ['orders'] as const;
      const input = orders(1, 0);
      await expect(app.hilo.loadGraph(app.db, { tables, input })).rejects.toThrow(/`database`.*SqliteDialect/);
      const refused = app.hilo.loadGraph(app.db, { database: other, tables, input });
      await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
      await expect(refused).rejects.toThrow(/`database` does not reach the database/);
    } finally {
      other.close();
      await app.close();
    }
  });
});
