import { getTableName } from 'drizzle-orm';
import { npmVersion } from 'drizzle-orm/version';
import { integer, sqliteTable } from 'drizzle-orm/sqlite-core';

// jest.config.ts maps `drizzle-orm` to one npm-aliased release per project and names it in this global;
// prove the mapping took, so that the hilo-drizzle suites this project reruns really ran against it.
const expected = (globalThis as { HILO_DRIZZLE_VERSION?: string }).HILO_DRIZZLE_VERSION;

it('the drizzle-orm every test in this project imports is the release the project names', () => {
  expect(expected).toMatch(/^(0\.(3[6-9]|4[0-5])\.\d+|1\.0\.0-(beta|rc)\.\d+)$/);
  expect(npmVersion).toBe(expected);
  expect(getTableName(sqliteTable('beta_probe', { id: integer('id').primaryKey() }))).toBe('beta_probe');
});
