import { MikroORM, defineEntity, p } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { HiLoConfigurationError, HiLoError } from 'hilo-core';
import { HiLo, hiloConfig, hiloKey, hiloKeyOptions } from '../src/index.js';
import { compatVersion, createSchema, initOrm } from './support/compat.js';

const onMikroOrm6 = compatVersion?.startsWith('6.') === true;

const Note = defineEntity({ name: 'Note', properties: { id: hiloKey(), text: p.string() } });

describe('mikro-orm: configuration', () => {
  it('should tell what to add when an entity has a hi/lo key but the extension is missing', async () => {
    const orm = await MikroORM.init({ driver: SqliteDriver, dbName: ':memory:', entities: [Note] });
    try {
      if (onMikroOrm6) {
        // MikroORM 6 runs onCreate hooks at flush unless told otherwise, and only hilo's EntityManager tells it
        const em = orm.em.fork();
        em.create(Note, { text: 'x' });
        await expect(em.flush()).rejects.toThrow(/extensions: \[HiLo\]/);
      } else {
        expect(() => orm.em.fork().create(Note, { text: 'x' })).toThrow(/extensions: \[HiLo\]/);
      }
    } finally {
      await orm.close();
    }
  });

  it('should serve keys at em.create() on in-memory SQLite, registered with hiloConfig()', async () => {
    const orm = await initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Note], ...hiloConfig() });
    try {
      await createSchema(orm);
      const em = orm.em.fork();
      const notes = [em.create(Note, { text: 'a' }), em.create(Note, { text: 'b' })];
      expect(notes.map((n) => n.id)).toEqual([1, 2]);
      await em.flush();
      expect(await orm.em.fork().count(Note)).toBe(2);
    } finally {
      await orm.close();
    }
  });

  it('should refuse hi source layout options on in-memory SQLite, naming them and where they were set', async () => {
    const extension = HiLo.configure({ table: 'my_hi', strategy: 'hilo' });
    await expect(
      initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Note], extensions: [extension] }),
    ).rejects.toThrow(
      new RegExp(
        /in memory \(":memory:"\), where hilo keeps the counter in this process and ignores `table`, `strategy`; /
          .source + /remove those options from HiLo\.configure\(\)/.source,
      ),
    );
  });

  it('should reject a hi/lo key that is also autoincrement, naming the property', async () => {
    const Bad = defineEntity({ name: 'Bad', properties: { id: hiloKey().autoincrement(), text: p.string() } });
    await expect(
      initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Bad], extensions: [HiLo] }),
    ).rejects.toThrow(/Bad\.id .*autoincrement/);
  });

  it('should reject a hi/lo key that is not the only primary key', async () => {
    const Pair = defineEntity({
      name: 'Pair',
      properties: { id: hiloKey(), other: p.integer().primary(), text: p.string() },
    });
    await expect(
      initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Pair], extensions: [HiLo] }),
    ).rejects.toThrow(/only primary key/);
  });

  it('should validate options up front', () => {
    expect(() => hiloKey({ segment: '' })).toThrow(HiLoConfigurationError);
    expect(() => hiloKeyOptions({ segment: 42 as never })).toThrow(
      'Expected `segment` to be a non-empty name of at most 255 characters without control characters, e.g. "orders", got 42.',
    );
    expect(() => HiLo.configure({ poolSize: 0 })).toThrow('Expected `poolSize` to be an integer ≥ 1, got 0.');
    expect(() => HiLo.configure({ source: 'nope' as never })).toThrow(/"sequence" or "table"/);
    expect(() => HiLo.configure({ blocksize: 10 } as never)).toThrow(
      /Unknown option `blocksize` for HiLo\.configure\(\); expected one of .*`blockSize`/,
    );
    expect(() => HiLo.configure({ blockSize: null } as never)).toThrow(/`blockSize` to be set or left out/);
  });

  it('should refuse to be registered twice', async () => {
    await expect(
      initOrm({ driver: SqliteDriver, dbName: ':memory:', entities: [Note], extensions: [HiLo, HiLo.configure({})] }),
    ).rejects.toThrow(/registered twice/);
  });

  it('should make MikroORM.init() fail fast when the database cannot be reached', async () => {
    const error = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
      entities: [Note],
      extensions: [HiLo.configure({ retries: 0 })],
    }).catch((e: unknown) => e);
    // MikroORM 6's init() connects, and fails, before it registers extensions
    if (onMikroOrm6) expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    else expect(error).toBeInstanceOf(HiLoError);
    // fast because `retries: 0` makes one attempt on a refused port, not measured in ms (issue #52)
  });

  if (onMikroOrm6) {
    it('should close the connection MikroORM 6 opened when registering throws, as init() hands out no ORM to close', async () => {
      let closed = 0;
      class RecordingDriver extends SqliteDriver {
        override async close(force?: boolean): Promise<void> {
          closed++;
          await super.close(force);
        }
      }
      await expect(
        MikroORM.init({
          driver: RecordingDriver,
          dbName: ':memory:',
          entities: [Note],
          extensions: [HiLo, HiLo.configure({})],
        }),
      ).rejects.toThrow(/registered twice/);
      await new Promise((resolve) => setImmediate(resolve));
      expect(closed).toBe(1);
    });

    it(
      'should make HiLo.ready() fail fast, with a typed error, when hilo cannot reach the database ' +
        '(MikroORM 6, connect: false)',
      async () => {
        const orm = await MikroORM.init({
          driver: PostgreSqlDriver,
          clientUrl: 'postgres://postgres@127.0.0.1:1/nowhere',
          entities: [Note],
          ...({ connect: false } as object), // a MikroORM 6 option (7 connects lazily)
          extensions: [HiLo.configure({ retries: 0 })],
        });
        try {
          // one attempt (`retries: 0`) on a refused port: fast by what it does, not measured in ms (issue #52)
          await expect(HiLo.ready(orm)).rejects.toBeInstanceOf(HiLoError);
        } finally {
          await orm.close(true);
        }
      },
    );
  }
});
