// Verified blocks follow the schema MikroORM writes to: the ORM's `schema` option and an entity's own `schema`
// qualify the probe's table as they qualify MikroORM's statements, so a hi store set back below the rows in
// schema `shop` is refused (or lifted when told) exactly as in `public`.
import { defineEntity, type MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import pg from 'pg';
import { describePostgres, errorCodes, setBackHiStores, runStatements } from '@hilo/testing';
import { HiLo, hiloKey, type HiLoOptions } from '../src/index.js';
import { initOrm } from './support/compat.js';

const ViaConfig = defineEntity({ name: 'ViaConfig', tableName: 'config_orders', properties: { id: hiloKey() } });
const ViaEntity = defineEntity({
  name: 'ViaEntity',
  tableName: 'entity_orders',
  schema: 'shop',
  properties: { id: hiloKey() },
});

describePostgres('mikro-orm: verified blocks in a schema other than public', (db) => {
  beforeAll(async () => {
    await runStatements(db.url, [
      'create schema shop',
      'create table shop.config_orders (id bigint primary key)',
      'create table shop.entity_orders (id bigint primary key)',
    ]);
  });

  const cases = [
    { title: "the ORM's schema option", entity: ViaConfig, table: 'config_orders', config: { schema: 'shop' } },
    { title: "the entity's schema", entity: ViaEntity, table: 'entity_orders', config: {} },
  ] as const;

  for (const { title, entity, table, config } of cases) {
    it(`${title}: a hi store set back below the rows in shop is refused, and lifted above them when told`, async () => {
      const open = (options: HiLoOptions = {}): Promise<MikroORM> =>
        initOrm({
          driver: PostgreSqlDriver,
          clientUrl: db.url,
          entities: [entity],
          ...config,
          extensions: [HiLo.configure({ blockSize: 10, ...options })],
        });
      /** Inserts `count` rows through the ORM, one flush each; returns their keys. */
      const insert = async (orm: MikroORM, count: number): Promise<number[]> => {
        const keys: number[] = [];
        for (let i = 0; i < count; i++) {
          const em = orm.em.fork();
          const row = em.create(entity, {} as never) as { id: number };
          await em.flush();
          keys.push(Number(row.id));
        }
        return keys;
      };
      const first = await open();
      const stored = await insert(first, 30).finally(() => first.close());
      expect(await setBackHiStores(db.url)).toBeGreaterThan(0);

      const refused = await open()
        .then(
          async (orm) => insert(orm, 1).finally(() => orm.close()),
          (error: unknown) => Promise.reject(error as Error),
        )
        .then(
          (keys) => ({ keys }),
          (error: unknown) => ({ error }),
        );
      expect(refused).toEqual({ error: expect.anything() });
      expect(errorCodes((refused as { error: unknown }).error)).toContain('HILO_STORE_BEHIND');

      const lifting = await open({ onStoreBehind: 'lift' });
      const lifted = await insert(lifting, 3).finally(() => lifting.close());
      expect(lifted.filter((key) => stored.includes(key))).toEqual([]);
      expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      const { rows } = await admin.query(`select count(*)::int as n from shop.${table}`).finally(() => admin.end());
      expect(rows[0].n).toBe(33);
    });
  }
});
