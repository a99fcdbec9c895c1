import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'hilo-core';
import { installedVersion } from '../../core/test/workers/installed-version.js';

// jest.config.ts maps each optional peer of hilo-core to the oldest release packages/core-compat installs and
// names the versions in a global: prove the mapping took, so that hilo-core's suites this project reruns
// really ran against those releases (the worker processes check the same themselves).
const expected = (globalThis as { HILO_WORKER_PACKAGES?: Record<string, string> }).HILO_WORKER_PACKAGES ?? {};
const versionOf = (name: string): string => installedVersion(name, import.meta.resolve(name));

/** better-sqlite3 12, built for Node.js 22 by scripts/test/better-sqlite3-12.test.ts, when it replaces the alias. */
const replacedBetterSqlite3 = process.env['HILO_BETTER_SQLITE3_DIR']
  ? (
      JSON.parse(readFileSync(join(process.env['HILO_BETTER_SQLITE3_DIR'], 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version
  : undefined;

it('maps every optional peer to the oldest release of its range', () => {
  expect(expected).toEqual({
    pg: '8.11.0',
    postgres: '3.4.0',
    mysql2: '3.9.0',
    mariadb: '3.4.0',
    'better-sqlite3': replacedBetterSqlite3 ?? '13.0.0',
    '@opentelemetry/api': '1.4.0',
  });
  for (const [name, version] of Object.entries(expected)) expect(versionOf(name)).toBe(version);
});

it('connect() opens a SQLite database through the mapped better-sqlite3', async () => {
  const client = await connect('sqlite::memory:');
  try {
    expect((await client.query('select sqlite_version() as v', [])).rows).toHaveLength(1);
  } finally {
    await client.close();
  }
});
