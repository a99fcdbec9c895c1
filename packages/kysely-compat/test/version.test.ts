import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import Database from 'better-sqlite3';
import { hiloKysely } from 'hilo-kysely';
import { loadedKyselyVersion } from '../../kysely/test/support/kysely-version.js';

// jest.config.ts maps `kysely` to the npm-aliased 0.27.0 in this project and names it in this global; prove
// the mapping took, so that the hilo-kysely suites this project reruns really ran against 0.27.0.
const expected = (globalThis as { HILO_KYSELY_VERSION?: string }).HILO_KYSELY_VERSION;

it('the kysely every test in this project imports is the release the project names', async () => {
  expect(expected).toBe('0.27.0');
  expect(await loadedKyselyVersion(Kysely)).toBe(expected);
});

it('fills a missing key in insertInto().values() on Kysely 0.27.0', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'hilo-kysely-compat-'));
  const file = join(folder, 'app.db');
  const hilo = hiloKysely({ url: `sqlite:${file}`, tables: { notes: true } });
  const db = new Kysely<{ notes: { id?: number; body: string } }>({
    dialect: new SqliteDialect({ database: new Database(file) }),
    plugins: [hilo.plugin],
  });
  try {
    await db.schema
      .createTable('notes')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('body', 'text')
      .execute();
    await hilo.insert(db.insertInto('notes').values([{ body: 'a' }, { body: 'b' }]));
    const rows = await db.selectFrom('notes').selectAll().orderBy('id').execute();
    expect(rows).toEqual([
      { id: expect.any(Number), body: 'a' },
      { id: expect.any(Number), body: 'b' },
    ]);
    expect(rows[1]!.id).toBe(rows[0]!.id! + 1);
  } finally {
    await db.destroy();
    await hilo.close();
    rmSync(folder, { recursive: true, force: true });
  }
});
