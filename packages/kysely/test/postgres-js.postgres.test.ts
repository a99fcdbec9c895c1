// A Kysely app on postgres.js (the `postgres` package through kysely-postgres-js' dialect) gives hilo its own
// postgres.js instance through hilo-core's postgresJsClient(): one driver in the app. The plugin fills keys,
// insert() serves a batch larger than the block inside db.transaction(), a rollback never gives a key back,
// and hilo.close() leaves the app's instance open.
import { describePostgres, usePostgresJs } from '@hilo/testing';
import { Kysely, type Generated } from 'kysely';
import { PostgresJSDialect } from 'kysely-postgres-js';
import { postgresJsClient } from 'hilo-core';
import { hiloKysely } from 'hilo-kysely';

interface DB {
  pjs_customers: { id: Generated<number>; name: string };
  pjs_orders: { id: Generated<number>; customer_id: number; total: number };
}

describePostgres('hilo-kysely on postgres.js', (db) => {
  const appInstance = usePostgresJs(db, [
    'create table pjs_customers (id bigint primary key, name text not null)',
    'create table pjs_orders (id bigint primary key, customer_id bigint not null references pjs_customers(id), total int not null)',
  ]);

  it("fills keys from the app's own postgres.js instance inside db.transaction(); a rollback never gives a key back", async () => {
    const sql = appInstance.sql();
    const hilo = hiloKysely({
      client: postgresJsClient(sql),
      blockSize: 20,
      adaptive: false,
      tables: { pjs_customers: true, pjs_orders: true },
    });
    const app = new Kysely<DB>({ dialect: new PostgresJSDialect({ postgres: sql }), plugins: [hilo.plugin] });
    try {
      await hilo.warm();
      const customerId = await app.transaction().execute(async (trx) => {
        const id = (await hilo.nextId('pjs_customers')) as number;
        await trx.insertInto('pjs_customers').values({ id, name: 'Ada' }).execute();
        // 50 rows, blocks of 20: reservations run on other connections of the instance while this one is in a transaction
        await hilo.insert(
          trx.insertInto('pjs_orders').values(Array.from({ length: 50 }, (_, i) => ({ customer_id: id, total: i }))),
        );
        return id;
      });
      let undone: number[] = [];
      await expect(
        app.transaction().execute(async (trx) => {
          const rows = await trx
            .insertInto('pjs_orders')
            .values([
              { customer_id: customerId, total: -1 },
              { customer_id: customerId, total: -2 },
            ])
            .returning('id')
            .execute();
          undone = rows.map((row) => Number(row.id));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const stored = await app.selectFrom('pjs_orders').select(['id', 'total']).execute();
      expect(stored).toHaveLength(50);
      expect(new Set(stored.map((row) => Number(row.id))).size).toBe(50);
      expect(undone).toHaveLength(2);
      const next = (await hilo.nextId('pjs_orders')) as number;
      expect(next).toBeGreaterThan(Math.max(...undone, ...stored.map((row) => Number(row.id))));
    } finally {
      await hilo.close();
    }
    // hilo was given the instance: closing hilo leaves the app's queries working
    expect(await sql`select count(*)::int as n from pjs_orders`).toEqual([{ n: 50 }]);
  });
});
