// Issue 52 item 7: an `int` key column near 2^31 − 1. The block check reads no key past the column's maximum, so
// TypeORM saves rows up to 2147483647 and then gets HiLoKeyLimitError, instead of a HiLoSourceError ("value …
// is out of range for type integer") from a probe of the whole block, keys before the end.
import 'reflect-metadata';
import { Column, DataSource, Entity } from 'typeorm';
import { describeDatabase } from '@hilo/testing';
import { HiLoGeneratedColumn, HiLoKeyLimitError, installHiLo } from 'hilo-typeorm';

const INT_MAX = 2_147_483_647;

@Entity('near_max_rows')
class NearMaxRow {
  @HiLoGeneratedColumn({ type: 'int' }) id!: number;
  @Column({ type: 'varchar', length: 20, default: '' }) note!: string;
}

export function keyColumnMaxSuite(database: 'postgres' | 'mysql'): void {
  describeDatabase(database, `typeorm on ${database}: an int key column near its maximum`, (db) => {
    it.each(['sequence', 'table'] as const)(
      '%s source: rows are saved up to 2147483647, then HiLoKeyLimitError',
      async (source) => {
        const dataSource = new DataSource({ type: database, url: db.url, entities: [NearMaxRow], synchronize: true });
        await dataSource.initialize();
        try {
          const repository = dataSource.getRepository(NearMaxRow);
          await repository.clear();
          await dataSource.query('delete from hilo_segments').catch(() => undefined);
          await dataSource.query('drop sequence if exists near_max_rows_hilo_seq');
          // a row 60 below the maximum: the store starts above it, and its first 100-key block passes the maximum
          await dataSource.query(`insert into near_max_rows (id, note) values (${INT_MAX - 60}, 'old')`);
          await installHiLo(dataSource, { blockSize: 100, source, adaptive: false });
          const keys: number[] = [];
          let failure: unknown;
          for (let i = 0; i < 200 && failure === undefined; i++) {
            try {
              keys.push((await repository.save({ note: `${i}` })).id);
            } catch (error) {
              failure = error;
            }
          }
          expect(failure).toBeInstanceOf(HiLoKeyLimitError);
          expect(keys[0]).toBeGreaterThan(INT_MAX - 60);
          expect(keys.at(-1)).toBe(INT_MAX);
          expect(await repository.count()).toBe(keys.length + 1);
        } finally {
          await dataSource.destroy();
        }
      },
    );
  });
}
