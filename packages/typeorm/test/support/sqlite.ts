import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDatabase } from '@hilo/testing';

/** A SQLite database for the suites: `url` is the file TypeORM opens (or `:memory:`). */
export interface SqliteTestDatabase {
  readonly kind: 'sqlite';
  readonly url: string;
  readonly name: string;
}

/** A database the TypeORM suites run against. */
export type SuiteDatabase = TestDatabase | SqliteTestDatabase;

/**
 * `describe` with a SQLite database file in a fresh temporary folder, removed afterwards. SQLite needs no
 * server, so these tests never skip. With `memory`, every DataSource gets its own `:memory:` database.
 */
export function describeSqlite(title: string, body: (db: SqliteTestDatabase) => void, { memory = false } = {}): void {
  describe(title, () => {
    const folder = mkdtempSync(join(tmpdir(), 'hilo-typeorm-'));
    afterAll(() => rmSync(folder, { recursive: true, force: true }));
    body({ kind: 'sqlite', url: memory ? ':memory:' : join(folder, 'shop.db'), name: memory ? ':memory:' : 'shop.db' });
  });
}
