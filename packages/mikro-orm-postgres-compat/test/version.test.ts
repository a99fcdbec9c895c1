import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Utils } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { describePostgres } from '@hilo/testing';
import { HiLo } from 'hilo-mikro-orm';
import { databaseKind, internalsProblem } from '../../mikro-orm/src/mikro-orm-internals.js';
import { Customer, defineEntities } from '../../mikro-orm/test/fixtures/define-entities.js';
import {
  compatVersion,
  createSchema,
  initOrm,
  installedMikroOrmFolder,
  installedVersion,
} from '../../mikro-orm/test/support/compat.js';

// jest.config.ts maps @mikro-orm/core and @mikro-orm/postgresql to packages/mikro-orm-postgres-compat in this
// project and names the release in a global: prove the mapping took, down to the core and SQL packages the
// PostgreSQL driver resolves for itself, so that the PostgreSQL suites this project reruns really ran on 7.2.5.
const compatRoot = dirname(createRequire(import.meta.url).resolve('../package.json'));

it('@mikro-orm/core, the PostgreSQL driver and the SQL package it resolves are the release the project names', () => {
  expect(compatVersion).toBe('7.2.5');
  expect(Utils.getORMVersion()).toBe(compatVersion);
  for (const name of ['core', 'postgresql'])
    expect(installedVersion(`@mikro-orm/${name}`, compatRoot)).toBe(compatVersion);
  const postgresql = installedMikroOrmFolder('postgresql', compatRoot);
  expect(installedVersion('@mikro-orm/core', postgresql)).toBe(compatVersion);
  expect(installedVersion('@mikro-orm/sql', postgresql)).toBe(compatVersion);
});

// internals.test.ts checks the internals on SQLite, whose newest driver (7.2.2) cannot run on core 7.2.5: the
// same check here, on the PostgreSQL driver of 7.2.5
describePostgres('MikroORM 7.2.5 on PostgreSQL', (db) => {
  it('has every internal hilo-mikro-orm uses, and gives an entity its key at em.create()', async () => {
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: defineEntities,
      extensions: [HiLo],
    });
    try {
      expect(internalsProblem(orm)).toBeUndefined();
      expect(databaseKind(orm)).toBe('postgres');
      expect(orm.em.fork().constructor.name).toMatch(/^HiLo\w*EntityManager$/);
      await createSchema(orm);
      const em = orm.em.fork();
      const customer = em.create(Customer, { name: 'ada', orders: [] });
      expect(customer.id).toEqual(expect.any(Number));
      await em.flush();
      expect(await orm.em.fork().count(Customer, { id: customer.id })).toBe(1);
    } finally {
      await orm.close();
    }
  });
});
