// Verified blocks follow the schema TypeORM writes to: an entity's `schema` and the DataSource's `schema` option
// qualify the probe's table as they qualify TypeORM's statements, so a hi store set back below the rows in schema
// `shop` is refused (or lifted when told) exactly as in `public`.
import 'reflect-metadata';
import { Column, DataSource, Entity } from 'typeorm';
import { describePostgres, errorCodes, setBackHiStores, runStatements } from '@hilo/testing';
import { HiLoGeneratedColumn, installHiLo, type HiLoTypeOrmOptions } from 'hilo-typeorm';

@Entity({ name: 'entity_orders', schema: 'shop' })
class EntityOrder {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'text', default: '' }) note!: string;
}

@Entity('source_orders')
class SourceOrder {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'text', default: '' }) note!: string;
}

describePostgres('typeorm: verified blocks in a schema other than public', (db) => {
  beforeAll(async () => {
    await runStatements(db.url, [
      'create schema shop',
      "create table shop.entity_orders (id bigint primary key, note text not null default '')",
      "create table shop.source_orders (id bigint primary key, note text not null default '')",
    ]);
  });

  const cases = [
    { title: "the entity's schema", entity: EntityOrder, schema: undefined },
    { title: "the DataSource's schema option", entity: SourceOrder, schema: 'shop' },
  ] as const;
  for (const { title, entity, schema } of cases) {
    it(`${title}: a hi store set back below the rows in shop is refused, and lifted above them when told`, async () => {
      const open = async (options: HiLoTypeOrmOptions = {}) => {
        const dataSource = new DataSource({
          type: 'postgres',
          url: db.url,
          entities: [entity],
          ...(schema ? { schema } : {}),
        });
        await dataSource.initialize();
        try {
          await installHiLo(dataSource, { blockSize: 10, ...options });
        } catch (error) {
          await dataSource.destroy();
          throw error;
        }
        return dataSource;
      };
      const insert = async (options: HiLoTypeOrmOptions, count: number): Promise<number[]> => {
        const dataSource = await open(options);
        try {
          const keys: number[] = [];
          for (let i = 0; i < count; i++)
            keys.push(Number((await dataSource.getRepository(entity).save({ note: `${i}` })).id));
          return keys;
        } finally {
          await dataSource.destroy();
        }
      };
      const stored = await insert({}, 30);
      expect(await setBackHiStores(db.url)).toBeGreaterThan(0);
      const refused = await insert({}, 1).then(
        () => [] as string[],
        (error: unknown) => errorCodes(error),
      );
      expect(refused).toContain('HILO_STORE_BEHIND');
      const lifted = await insert({ onStoreBehind: 'lift' }, 3);
      expect(Math.min(...lifted)).toBeGreaterThan(Math.max(...stored));
    });
  }
});
