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

// jest.config.ts maps `@mikro-orm/*` to packages/mikro-orm-6-compat in this project and names the release in a
// global: prove the mapping took for every package the hilo-mikro-orm suites load, including the core and knex
// packages the drivers resolve for themselves, so that those suites really ran against MikroORM 6.
const compatRoot = dirname(createRequire(import.meta.url).resolve('../package.json'));
const versionOf = installedVersion;
const folderOf = (driver: string): string => installedMikroOrmFolder(driver, compatRoot);

it('every @mikro-orm package the suites load is the MikroORM 6 release the project names', () => {
  expect(compatVersion).toBe('6.6.16');
  expect(Utils.getORMVersion()).toBe(compatVersion);
  for (const name of ['core', 'knex', 'postgresql', 'better-sqlite', 'mariadb', 'mysql'])
    expect(versionOf(`@mikro-orm/${name}`, compatRoot)).toBe(compatVersion);
  for (const driver of ['postgresql', 'better-sqlite', 'mariadb', 'mysql']) {
    expect(versionOf('@mikro-orm/core', folderOf(driver))).toBe(compatVersion);
    expect(versionOf('@mikro-orm/knex', folderOf(driver))).toBe(compatVersion);
  }
  expect(SqliteDriver.name).toBe('BetterSqliteDriver');
  expect([PostgreSqlDriver, MariaDbDriver].every((driver) => typeof driver === 'function')).toBe(true);
});

it('gives an entity its key at em.create() on MikroORM 6, once HiLo.ready() has resolved', async () => {
  await expectKeyAtCreateOnSqlite(SqliteDriver);
});
