// On MariaDB a "schema" is a database: an entity's `database` qualifies the probe's table as it qualifies TypeORM's
// statements, so a hi store set back below the rows in another database is refused (or lifted when told) exactly as
// in the connection's own; the hi store lives beside the table, in that database.
import 'reflect-metadata';
import { Column, DataSource, Entity } from 'typeorm';
import { describeMysql, errorCodes, randomName, setBackHiStores, runStatements } from '@hilo/testing';
import { HiLoGeneratedColumn, installHiLo, type HiLoTypeOrmOptions } from 'hilo-typeorm';

/** The database the entity's rows are in, created and dropped by the test; the DataSource's url names another. */
const SHOP = randomName('hilo_shop');

@Entity({ name: 'orders', database: SHOP })
class ShopOrder {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 50, default: '' }) note!: string;
}

describeMysql('typeorm: verified blocks in another MariaDB database', (db) => {
  beforeAll(async () => {
    await runStatements(db.url, [
      `create database \`${SHOP}\``,
      `create table \`${SHOP}\`.orders (id bigint primary key, note varchar(50) not null default '')`,
    ]);
  });

  it("an entity's database: a hi store set back below the rows there is refused, and lifted when told", async () => {
    const insert = async (options: HiLoTypeOrmOptions, count: number): Promise<number[]> => {
      const dataSource = new DataSource({ type: 'mysql', url: db.url, entities: [ShopOrder] });
      await dataSource.initialize();
      try {
        await installHiLo(dataSource, { blockSize: 10, ...options });
        const keys: number[] = [];
        for (let i = 0; i < count; i++)
          keys.push(Number((await dataSource.getRepository(ShopOrder).save({ note: `${i}` })).id));
        return keys;
      } finally {
        await dataSource.destroy();
      }
    };
    try {
      const stored = await insert({}, 30);
      // the store lives beside the entity's table, in its database (issue 53), not in the DataSource's
      const shopUrl = new URL(db.url);
      shopUrl.pathname = `/${SHOP}`;
      expect(await setBackHiStores(shopUrl.toString())).toBeGreaterThan(0);
      const refused = await insert({}, 1).then(
        () => [] as string[],
        (error: unknown) => errorCodes(error),
      );
      expect(refused).toContain('HILO_STORE_BEHIND');
      const lifted = await insert({ onStoreBehind: 'lift' }, 3);
      expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
    } finally {
      await runStatements(db.url, [`drop database if exists \`${SHOP}\``]);
    }
  });
});
