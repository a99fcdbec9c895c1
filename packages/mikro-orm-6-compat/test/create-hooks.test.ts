// MikroORM 6 runs onCreate hooks at flush unless `processOnCreateHooksEarly` is set (7 runs them at creation).
// hilo's EntityManager runs them at em.create() while the ORM has hi/lo keys, for the whole graph, so that keys
// are there before flush as on 7; an explicit per-call option still wins.
import { Cascade, MikroORM, defineEntity, p } from '@mikro-orm/core';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { HiLo, hiloKey } from 'hilo-mikro-orm';

const Folder = defineEntity({
  name: 'Folder',
  properties: {
    id: p.integer().primary(),
    name: p.string(),
    notes: () => p.oneToMany(Page).mappedBy('folder').cascade(Cascade.ALL),
  },
});
const Page = defineEntity({
  name: 'Page',
  properties: { id: hiloKey(), text: p.string(), folder: () => p.manyToOne(Folder) },
});

describe('MikroORM 6: onCreate hooks at em.create()', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await MikroORM.init({
      driver: SqliteDriver,
      dbName: ':memory:',
      entities: [Folder, Page],
      extensions: [HiLo],
    });
    await HiLo.ready(orm);
    await orm.schema.createSchema();
  });
  afterAll(() => orm?.close());

  it('keys a hi/lo child created through a parent without a hi/lo key, before flush', async () => {
    const em = orm.em.fork();
    const folder = em.create(Folder, { name: 'inbox', notes: [{ text: 'a' }, { text: 'b' }] });
    const ids = folder.notes.getItems().map((page) => page.id);
    expect(ids.every((id) => Number.isSafeInteger(id))).toBe(true);
    expect(orm.config.get('processOnCreateHooksEarly')).toBe(false); // switched for the call only
    await em.flush();
    expect(folder.id).toEqual(expect.any(Number)); // the parent's own key still comes from the database
    expect(await orm.em.fork().count(Page, { id: { $in: ids } })).toBe(2);
  });

  it('leaves the key to the flush when the call asks for hooks at flush', async () => {
    const em = orm.em.fork();
    const page = em.create(
      Page,
      { text: 'late', folder: em.create(Folder, { name: 'late' }) },
      { processOnCreateHooksEarly: false },
    );
    expect(page.id).toBeUndefined();
    await em.flush();
    expect(Number.isSafeInteger(page.id)).toBe(true);
  });
});
