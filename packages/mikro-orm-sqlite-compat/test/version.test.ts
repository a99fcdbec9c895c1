import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Utils } from '@mikro-orm/core';
import { SqliteDriver } from '@mikro-orm/sqlite';
import {
  compatVersion,
  expectKeyAtCreateOnSqlite,
  installedMikroOrmFolder,
  installedVersion,
} from '../../mikro-orm/test/support/compat.js';

// jest.config.ts maps @mikro-orm/core and @mikro-orm/sqlite to packages/mikro-orm-sqlite-compat in this
// project and names the release in a global: prove the mapping took, down to the core and SQL packages the
// SQLite driver resolves for itself, so that the SQLite suites this project reruns really ran on 7.2.2.
const compatRoot = dirname(createRequire(import.meta.url).resolve('../package.json'));

it('@mikro-orm/core and the SQLite driver the suites load are the release the project names', () => {
  expect(compatVersion).toBe('7.2.2');
  expect(Utils.getORMVersion()).toBe(compatVersion);
  for (const name of ['core', 'sqlite']) expect(installedVersion(`@mikro-orm/${name}`, compatRoot)).toBe(compatVersion);
  const sqlite = installedMikroOrmFolder('sqlite', compatRoot);
  expect(installedVersion('@mikro-orm/core', sqlite)).toBe(compatVersion);
  expect(installedVersion('@mikro-orm/sql', sqlite)).toBe(compatVersion);
});

it('gives an entity its key at em.create() on MikroORM 7.2.2', async () => {
  await expectKeyAtCreateOnSqlite(SqliteDriver);
});
