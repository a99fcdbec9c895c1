// Issue 54: a Kysely app on PGlite (Kysely's PGliteDialect, 0.29 and later; PostgreSQL in the process) gives hilo the
// same instance through pgliteClient(). Kysely runs a transaction in PGlite's exclusive mode, which holds the one
// session: hilo reserves outside it (warm(), insert() before the transaction), serves keys from memory inside it,
// never hands out a rolled-back transaction's keys again, and tells a transaction that needs more keys at once.
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, type Generated } from 'kysely';
import { pgliteClient } from 'hilo-core';
import { hiloKysely } from 'hilo-kysely';

interface DB {
  orders: { id: Generated<number>; note: string };
}

describe('hilo-kysely on PGlite', () => {
  it('keys from memory inside transactions; a rollback never gives a key back; a reservation there fails at once', async () => {
    const pglite = new PGlite();
    await pglite.exec('create table orders (id bigint primary key, note text not null)');
    const hilo = hiloKysely({ client: pgliteClient(pglite), blockSize: 20, tables: { orders: true } });
    const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }), plugins: [hilo.plugin] });
    try {
      await hilo.warm();
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('orders').values({ note: 'kept' }).execute();
      });
      let undone = 0;
      await expect(
        db.transaction().execute(async (trx) => {
          undone = (await hilo.nextId('orders')) as number;
          await trx.insertInto('orders').values({ id: undone, note: 'undone' }).execute();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const after = (await hilo.nextId('orders')) as number;
      expect(after).toBeGreaterThan(undone);
      // more rows in one transaction than keys in hand: the reservation it needs is refused at once, naming ensure()
      const error = await db
        .transaction()
        .execute(async (trx) => {
          for (let i = 0; i < 60; i++)
            await trx
              .insertInto('orders')
              .values({ note: `o${i}` })
              .execute();
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((error as Error).message).toMatch(/ensure\(/);
      // insert() before the transaction makes sure the keys are in memory
      await hilo.ensure('orders', 60);
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 60; i++)
          await trx
            .insertInto('orders')
            .values({ note: `o${i}` })
            .execute();
      });
      const rows = await db.selectFrom('orders').select('id').execute();
      expect(rows).toHaveLength(61);
      expect(new Set(rows.map((r) => Number(r.id))).size).toBe(61);
      expect(rows.map((r) => Number(r.id))).not.toContain(undone);
    } finally {
      await hilo.close();
      await db.destroy();
    }
  });
});
