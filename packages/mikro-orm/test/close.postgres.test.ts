// Closing never waits on MikroORM's own close: after a database restart MikroORM's `orm.close()` may never
// settle (its behaviour, reproduced without hilo), and hilo's pool must still be released.
import { defineEntity, p } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { describePostgres } from '@hilo/testing';
import type { HiLoEvent } from 'hilo-core';
import { HiLo, hiloKey } from '../src/index.js';
import { createSchema, initOrm } from './support/compat.js';

const Memo = defineEntity({
  name: 'Memo',
  tableName: 'close_memos',
  properties: { id: hiloKey({ segment: 'close_memos' }), text: p.string() },
});

describePostgres("mikro-orm: closing while MikroORM's own close hangs", (db) => {
  it("should close hilo's generator and give back its unused keys although orm.close() never settles", async () => {
    const events: HiLoEvent[] = [];
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [Memo],
      extensions: [
        HiLo.configure({
          source: 'table',
          blockSize: 50,
          onEvent: (event) => events.push(event),
          closeTimeoutMs: 1000,
        }),
      ],
    });
    await createSchema(orm);
    const em = orm.em.fork();
    em.create(Memo, { text: 'one' });
    await em.flush();
    // MikroORM's close stuck, as after a PostgreSQL restart
    const driver = orm.driver as { close: () => Promise<void> };
    const realClose = driver.close.bind(driver);
    driver.close = () => new Promise<void>(() => undefined);
    void orm.close();
    // hilo's close runs although MikroORM's never settles: waited for as an event, however long a loaded machine
    // takes (the test's timeout is the hang detector, issue #52)
    while (!events.some((e) => (e.type === 'returned' || e.type === 'lost') && e.segment === 'close_memos')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(events.filter((e) => e.type === 'returned' && e.segment === 'close_memos')).toEqual([
      { type: 'returned', segment: 'close_memos', keys: 49 },
    ]);
    expect(() => HiLo.generator(orm).nextSync('close_memos')).toThrow(/closed/i);
    await realClose(); // the ORM's own pool, which the stuck close left open
  });
});
