import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { MikroORM, Utils } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { HiLo } from 'hilo-mikro-orm';
import { Customer, defineEntities } from '../../mikro-orm/test/fixtures/define-entities.js';
import { compatVersion, installedMikroOrmFolder, installedVersion } from '../../mikro-orm/test/support/compat.js';

// jest.config.ts maps `@mikro-orm/*` to packages/mikro-orm-compat in this project and names the release in a
// global: prove the mapping took for every package the hilo-mikro-orm suites load, including the core and
// SQL packages the drivers resolve for themselves, so that those suites really ran against that release.
const compatRoot = dirname(createRequire(import.meta.url).resolve('../package.json'));
const versionOf = installedVersion;
const folderOf = (driver: string): string => installedMikroOrmFolder(driver, compatRoot);

it('every @mikro-orm package the suites load is the release the project names', () => {
  expect(compatVersion).toBe('7.2.0');
  expect(Utils.getORMVersion()).toBe(compatVersion);
  for (const name of ['core', 'decorators', 'postgresql', 'sqlite', 'mariadb']) expect(versionOf(`@mikro-orm/${name}`, compatRoot)).toBe(compatVersion);
  for (const driver of ['postgresql', 'sqlite', 'mariadb']) expect(versionOf('@mikro-orm/core', folderOf(driver))).toBe(compatVersion);
  expect(versionOf('@mikro-orm/sql', folderOf('postgresql'))).toBe(compatVersion);
  expect([PostgreSqlDriver, SqliteDriver, MariaDbDriver].every((driver) => typeof driver === 'function')).toBe(true);
});

it('gives an entity its key at em.create() on MikroORM 7.2.0', async () => {
  const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: defineEntities, extensions: [HiLo] });
  try {
    await orm.schema.create();
    const em = orm.em.fork();
    const customer = em.create(Customer, { name: 'ada', orders: [] });
    expect(customer.id).toEqual(expect.any(Number));
    await em.flush();
    expect(await orm.em.fork().count(Customer, { id: customer.id })).toBe(1);
  } finally {
    await orm.close();
  }
});
