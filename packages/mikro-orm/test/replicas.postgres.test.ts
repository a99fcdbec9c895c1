// Apps behind a read replica configure MikroORM with `replicas`: MikroORM sends reads there, and hilo's
// reservations must go to the primary (a replica refuses nextval and UPDATE). The replica here is a second,
// empty database, so that any hilo object or row that lands there shows.
import { defineEntity, p } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { createPostgresDatabase, describePostgres, postgresContents } from '@hilo/testing';
import { HiLo, hiloKey } from '../src/index.js';
import { createSchema, initOrm } from './support/compat.js';

const Memo = defineEntity({
  name: 'Memo',
  tableName: 'replicated_memos',
  properties: { id: hiloKey({ segment: 'replicated_memos' }), text: p.string() },
});

describePostgres('mikro-orm: an ORM with a read replica (replicas)', (db) => {
  it('reserves on the primary, gives keys at em.create(), and flushes there; the replica sees none of it', async () => {
    const replica = await createPostgresDatabase();
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      replicas: [{ name: 'replica', dbName: replica.name }],
      entities: [Memo],
      extensions: [HiLo.configure({ blockSize: 10 })],
    });
    try {
      await createSchema(orm);
      await HiLo.ready(orm);
      const em = orm.em.fork();
      const memos = Array.from({ length: 8 }, (_, i) => em.create(Memo, { text: `m${i}` }));
      expect(memos.every((memo) => Number.isInteger(memo.id))).toBe(true);
      await em.flush();
      expect(await HiLo.generator(orm).next('replicated_memos')).toBeGreaterThan(
        Math.max(...memos.map((memo) => memo.id)),
      );
      expect(await postgresContents(db.url, 'replicated_memos')).toEqual({ sequences: 1, rows: 8 });
      expect(await postgresContents(replica.url, 'replicated_memos')).toEqual({ sequences: 0, rows: -1 });
      // the replica is really in use: MikroORM reads there, where the table does not exist
      await expect(orm.em.fork().count(Memo)).rejects.toThrow(/replicated_memos/);
    } finally {
      await orm.close();
      await replica.drop();
    }
  });
});
