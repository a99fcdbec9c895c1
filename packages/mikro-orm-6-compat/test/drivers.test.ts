// MikroORM 6 has drivers 7 folds together or drops: `@mikro-orm/mysql` (mysql2) next to `@mikro-orm/mariadb`
// (the `mariadb` package), each on knex. hilo builds its own pool from the knex client's driver module and
// settings; these tests run it on the mysql2 driver and check the refusal for a driver it cannot pool.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { MySqlDriver } from '@mikro-orm/mysql';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { describeMysql, type TestDatabase } from '@hilo/testing';
import { HiLoConfigurationError } from 'hilo-core';
import { HiLo } from 'hilo-mikro-orm';
import { Customer, Order, defineEntities } from '../../mikro-orm/test/fixtures/define-entities.js';

describeMysql('MikroORM 6 with @mikro-orm/mysql (mysql2)', (db: TestDatabase) => {
  let orm: MikroORM;
  const statements: string[] = [];
  beforeAll(async () => {
    orm = await MikroORM.init({
      driver: MySqlDriver,
      clientUrl: db.url,
      entities: defineEntities,
      extensions: [HiLo.configure({ blockSize: 4, adaptive: false })],
      debug: ['query'],
      logger: (message: string) => statements.push(message),
    });
    await HiLo.ready(orm);
    await orm.schema.createSchema();
  });
  afterAll(() => orm?.close());

  it('reserves on a pool of its own: keys at em.create(), none of its statements on the ORM connection', async () => {
    statements.length = 0;
    const em = orm.em.fork();
    // more orders than a block of 4: their segment reserves again while this test runs
    const orders = Array.from({ length: 9 }, (_, i) => ({ reference: `a-${i}`, items: [] }));
    const customer = em.create(Customer, { name: 'ada', orders });
    expect(Number.isSafeInteger(customer.id)).toBe(true);
    await em.flush(); // the orders the block in memory could not key get theirs here
    const ids = customer.orders.getItems().map((order) => (order as { id: number }).id);
    expect(new Set(ids.filter(Number.isSafeInteger)).size).toBe(9);
    expect(await orm.em.fork().count(Order, { id: { $in: ids } })).toBe(9);
    // the ORM logs its own statements (its inserts), and none of hilo's: those name its `hilo_segments` table
    expect(statements.some((s) => /insert into `orders`/.test(s))).toBe(true);
    expect(statements.filter((s) => /hilo/i.test(s))).toEqual([]);
    const [row] = await orm.em
      .getConnection()
      .execute<Array<{ n: number | string }>>('select count(*) as n from hilo_segments');
    expect(Number(row?.n)).toBe(3);
  });

  it('never reuses a key from a rolled-back transaction, across more keys than a block', async () => {
    const kept: number[] = [];
    await expect(
      orm.em.fork().transactional(async (em) => {
        for (let i = 0; i < 6; i++) kept.push(em.create(Customer, { name: `rolled-${i}`, orders: [] }).id);
        await em.flush();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const em = orm.em.fork();
    const after = Array.from({ length: 6 }, (_, i) => em.create(Customer, { name: `after-${i}`, orders: [] }));
    await em.flush();
    expect(after.map((c) => c.id).filter((id) => kept.includes(id))).toEqual([]);
    expect(await orm.em.fork().count(Customer, { name: { $like: 'rolled-%' } })).toBe(0);
  });
});

describe('MikroORM 6 drivers and settings hilo cannot build its own pool from', () => {
  it('fails HiLo.ready() with a configuration error that says to pass `client`', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hilo-m6-'));
    const orm = await MikroORM.init({ driver: SqliteDriver, dbName: join(dir, 'shop.db'), entities: defineEntities });
    try {
      // what the knex client of `@mikro-orm/sqlite` 6 holds: the `sqlite3` module, which hilo has no client for
      const client = (
        orm.em.getConnection('write') as unknown as { getKnex(): { client: { driver: unknown } } }
      ).getKnex().client;
      client.driver = { Database: class {}, verbose: () => undefined };
      HiLo.register(orm);
      const error = await HiLo.ready(orm).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      expect((error as Error).message).toMatch(
        new RegExp(
          /cannot open a pool of its own for MikroORM 6\.6\.16's BetterSqliteDriver: /.source +
            /its driver is not one hilo can open a pool of .*HiLo\.configure\(\{ client \}\)/.source,
        ),
      );
    } finally {
      await orm.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails HiLo.ready() with a configuration error that says to pass `client` when the password is a callback', async () => {
    // knex then computes its connection settings at connect time, and hilo has none to build its pool from
    const orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: 'postgres://postgres@127.0.0.1:5432/nowhere',
      password: async () => 'secret',
      connect: false,
      entities: defineEntities,
      extensions: [HiLo],
    });
    try {
      const error = await HiLo.ready(orm).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      expect((error as Error).message).toMatch(
        /PostgreSqlDriver: its connection settings are computed at connect time; pass one: `HiLo\.configure\(\{ client \}\)`/,
      );
    } finally {
      await orm.close(true);
    }
  });
});
