import postgres from 'postgres';
import type { TestDatabase } from './databases.ts';

/** The app's own postgres.js instance in a test of an adapter on postgres.js. */
export type PostgresJsSql = ReturnType<typeof postgres>;

/**
 * A postgres.js instance on `db` for the tests of a describe block, as an app on postgres.js holds one: opened
 * before them with `statements` run on it (the tables), ended after them. Notices (`if not exists` on an existing
 * object) are dropped rather than printed. Resolves the instance through `sql()` once the block started.
 */
export function usePostgresJs(db: TestDatabase, statements: readonly string[]): { sql(): PostgresJsSql } {
  let instance: PostgresJsSql | undefined;
  beforeAll(async () => {
    instance = postgres(db.url, { onnotice: () => undefined });
    for (const statement of statements) await instance.unsafe(statement);
  });
  afterAll(async () => {
    await instance?.end({ timeout: 1 });
  });
  return {
    sql() {
      if (!instance) throw new Error('usePostgresJs(): the instance opens in beforeAll; call sql() inside a test');
      return instance;
    },
  };
}
