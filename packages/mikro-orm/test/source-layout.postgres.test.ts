// `strategy` and `create` reach the hi source as the user set them in HiLo.configure(), as in every adapter.
import { MikroORM, defineEntity, p } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { describePostgres } from '@hilo/testing';
import { HiLo, hiloKey } from '../src/index.js';
import { createSchema, initOrm } from './support/compat.js';

const Ticket = defineEntity({
  name: 'Ticket',
  tableName: 'layout_tickets',
  properties: { id: hiloKey(), title: p.string() },
});

describePostgres('mikro-orm: hi source layout options', (db) => {
  it('should lay blocks out with the strategy set: pooled stores the last key of each block in the sequence', async () => {
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [Ticket],
      extensions: [HiLo.configure({ strategy: 'pooled', blockSize: 10, adaptive: false, prefetchAt: false })],
    });
    try {
      await createSchema(orm);
      const em = orm.em.fork();
      const tickets = [em.create(Ticket, { title: 'a' }), em.create(Ticket, { title: 'b' })];
      await em.flush();
      const [row] = await orm.em
        .getConnection()
        .execute<Array<{ last_value: string }>>('select last_value from layout_tickets_hilo_seq');
      const stored = Number(row?.last_value);
      // pooled: the sequence holds the block's last key (pooled-lo, the default, would hold its first)
      expect(tickets.map((t) => t.id)).toEqual([stored - 9, stored - 8]);
    } finally {
      await orm.close();
    }
  });

  it('should not create missing hi objects with create: false, and say to run `hilo init`', async () => {
    const init = initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [Ticket],
      extensions: [HiLo.configure({ create: false, source: 'table', table: 'layout_missing_hi' })],
    });
    await expect(init).rejects.toThrow(/hilo init/);
    const probe = await MikroORM.init({ driver: PostgreSqlDriver, clientUrl: db.url, entities: [Ticket] });
    try {
      const found = await probe.em
        .getConnection()
        .execute<Array<{ name: string | null }>>("select to_regclass('layout_missing_hi')::text as name");
      expect(found).toEqual([{ name: null }]);
    } finally {
      await probe.close();
    }
  });
});
