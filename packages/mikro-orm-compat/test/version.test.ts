import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Utils } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import {
  compatVersion,
  expectKeyAtCreateOnSqlite,
  installedMikroOrmFolder,
  installedVersion,
} from '../../mikro-orm/test/support/compat.js';

// jest.config.ts maps `@mikro-orm/*` to packages/mikro-orm-compat in this project and names the release in a
// global: prove the mapping took for every package the hilo-mikro-orm suites load, including the core and
// SQL packages the drivers resolve for themselves, so that those suites really ran against that release.
const compatRoot = dirname(createRequire(import.meta.url).resolve('../package.json'));
const versionOf = installedVersion;
const folderOf = (driver: string): string => installedMikroOrmFolder(driver, compatRoot);

it('every @mikro-orm package the suites load is the release the project names', () => {
  expect(compatVersion).toBe('7.2.0');
  expect(Utils.getORMVersion()).toBe(compatVersion);
  for (const name of ['core', 'decorators', 'postgresql', 'sqlite', 'mariadb'])
    expect(versionOf(`@mikro-orm/${name}`, compatRoot)).toBe(compatVersion);
  for (const driver of ['postgresql', 'sqlite', 'mariadb'])
    expect(versionOf('@mikro-orm/core', folderOf(driver))).toBe(compatVersion);
  expect(versionOf('@mikro-orm/sql', folderOf('postgresql'))).toBe(compatVersion);
  expect([PostgreSqlDriver, SqliteDriver, MariaDbDriver].every((driver) => typeof driver === 'function')).toBe(true);
});

it('gives an entity its key at em.create() on MikroORM 7.2.0', async () => {
  await expectKeyAtCreateOnSqlite(SqliteDriver);
});
