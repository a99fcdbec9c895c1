// The MikroORM internals hilo-mikro-orm relies on (all in src/mikro-orm-internals.ts) exist in the MikroORM
// installed here, and a MikroORM whose internals moved is refused at registration, by name.
import { MikroORM, Utils } from '@mikro-orm/core';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { defineEntity, p } from '@mikro-orm/core';
import { HiLoConfigurationError } from 'hilo-core';
import { HiLo, hiloKey } from 'hilo-mikro-orm';
import { databaseKind, internalsProblem, SUPPORTED_MAJOR } from '../src/mikro-orm-internals.js';
import { compatVersion, initOrm } from './support/compat.js';

const onMikroOrm6 = compatVersion?.startsWith('6.') === true;

const Note = defineEntity({ name: 'InternalsNote', properties: { id: hiloKey(), text: p.string() } });

describe('MikroORM internals used by hilo-mikro-orm', () => {
  it(`are all present in the installed MikroORM ${SUPPORTED_MAJOR}.x`, async () => {
    const orm = await initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Note], extensions: [HiLo] });
    try {
      expect(internalsProblem(orm)).toBeUndefined();
      expect(databaseKind(orm)).toBe('sqlite');
      // the EntityManager subclass registered through the driver's factory is what the ORM hands out
      expect(orm.em.fork().constructor.name).toMatch(/^HiLo\w*EntityManager$/);
    } finally {
      await orm.close();
    }
  });

  it('refuses to open its own connection on a platform of another database family, naming `client`', async () => {
    const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
    try {
      const driver = orm.driver as unknown as { getPlatform: () => unknown };
      const original = driver.getPlatform;
      driver.getPlatform = () => new (class MsSqlPlatform {})();
      try {
        expect(() => databaseKind(orm)).toThrow(HiLoConfigurationError);
        expect(() => databaseKind(orm)).toThrow(
          /not on MikroORM's MsSqlPlatform; pass one: `HiLo.configure\(\{ client \}\)`/,
        );
      } finally {
        driver.getPlatform = original;
      }
      expect(databaseKind(orm)).toBe('sqlite');
    } finally {
      await orm.close();
    }
  });

  it('refuses, naming what is missing, a driver whose createEntityManager() is gone', async () => {
    const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
    try {
      const driver = orm.driver as unknown as { createEntityManager?: unknown };
      const original = driver.createEntityManager;
      driver.createEntityManager = undefined;
      try {
        expect(internalsProblem(orm)).toMatch(/driver has no createEntityManager\(\)/);
        expect(() => HiLo.register(orm)).toThrow(HiLoConfigurationError);
        expect(() => HiLo.register(orm)).toThrow(
          /createEntityManager\(\).*MikroORM 7\.2\.0 or a later 7\.x release, or 6\.6\.16/,
        );
      } finally {
        driver.createEntityManager = original;
      }
    } finally {
      await orm.close();
    }
  });

  if (onMikroOrm6) {
    it('refuses, on MikroORM 6, a connection without the knex client it builds its own pool from', async () => {
      const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
      try {
        const connection = orm.driver.getConnection('write') as unknown as { getKnex?: unknown };
        const original = connection.getKnex;
        connection.getKnex = undefined;
        try {
          expect(internalsProblem(orm)).toMatch(/SqliteConnection has no getKnex\(\)/);
          expect(() => HiLo.register(orm)).toThrow(
            /getKnex\(\); hilo-mikro-orm needs MikroORM 7\.2\.0 or a later 7\.x release, or 6\.6\.16/,
          );
        } finally {
          connection.getKnex = original;
        }
      } finally {
        await orm.close();
      }
    });
  } else {
    it(
      'refuses a connection without getNativeClient(), as MikroORM 7.0 and 7.1 have, saying 7.2.0 ' +
        'is the oldest it works with',
      async () => {
        const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
        try {
          // 7.0/7.1 connections lack the method altogether; hide this one's so the check sees the same shape
          const connection = orm.driver.getConnection('write') as unknown as { getNativeClient?: unknown };
          connection.getNativeClient = undefined;
          expect(internalsProblem(orm)).toMatch(/SqliteConnection has no getNativeClient\(\)/);
          expect(() => HiLo.register(orm)).toThrow(
            /getNativeClient\(\); hilo-mikro-orm needs MikroORM 7\.2\.0 or a later 7\.x release/,
          );
        } finally {
          await orm.close();
        }
      },
    );
  }

  it('refuses a MikroORM 6 release older than 6.6.16 and any other major, naming the version found', async () => {
    const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
    const getORMVersion = Utils.getORMVersion;
    try {
      for (const [version, message] of [
        ['6.6.15', /supports MikroORM 6 from 6\.6\.16, found 6\.6\.15/],
        ['5.9.8', /supports MikroORM 6\.6 and 7\.x, found 5\.9\.8/],
        ['8.0.0', /supports MikroORM 6\.6 and 7\.x, found 8\.0\.0/],
      ] as const) {
        Utils.getORMVersion = () => version;
        expect(internalsProblem(orm)).toMatch(message);
        expect(() => HiLo.register(orm)).toThrow(HiLoConfigurationError);
      }
    } finally {
      Utils.getORMVersion = getORMVersion;
      await orm.close();
    }
  });
});
