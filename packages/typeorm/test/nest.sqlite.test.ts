import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Column, DataSource, Entity } from 'typeorm';
import { HiLoConfigurationError } from 'hilo-core';
import { HiLoGeneratedColumn, hiloDataSourceFactory, hiloOf } from 'hilo-typeorm';
import { describeSqlite } from './support/sqlite.js';

// hiloDataSourceFactory() is what @nestjs/typeorm's TypeOrmModule.forRootAsync({ dataSourceFactory }) calls with
// the options of its useFactory. Nest itself runs it in scripts/test/nest-app.postgres.test.ts (a `nest new` app
// over HTTP) and examples/nestjs; here, on every TypeORM release of the peer range (the `typeorm <version>`
// projects map `typeorm` for this file and for hilo-typeorm alike), it must build that release's DataSource.

@Entity('nest_tickets')
class Ticket {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) title!: string;
}

describeSqlite('hiloDataSourceFactory(): the dataSourceFactory for @nestjs/typeorm', (db) => {
  it('returns an initialized DataSource of the app’s TypeORM with hilo installed: keys at create(), rows saved under them', async () => {
    const factory = hiloDataSourceFactory({ blockSize: 7 });
    const dataSource = await factory({
      type: 'better-sqlite3',
      database: db.url,
      entities: [Ticket],
      synchronize: true,
    });
    try {
      expect(dataSource).toBeInstanceOf(DataSource);
      expect(dataSource.isInitialized).toBe(true);
      expect(hiloOf(dataSource).segmentOf(Ticket)).toBe('nest_tickets');
      const repository = dataSource.getRepository(Ticket);
      const tickets = ['a', 'b', 'c'].map((title) => repository.create({ title }));
      const keys = tickets.map((t) => t.id);
      expect(keys.every((key) => Number.isSafeInteger(key) && key > 0)).toBe(true);
      expect(new Set(keys).size).toBe(3);
      await repository.save(tickets);
      const stored = await repository.find({ order: { id: 'ASC' } });
      expect(stored.map((t) => [Number(t.id), t.title])).toEqual(
        tickets.map((t) => [t.id, t.title]).sort((a, b) => Number(a[0]) - Number(b[0])),
      );
    } finally {
      await dataSource.destroy();
    }
  });

  it('checks hilo’s options when the module is declared, not inside Nest’s connection retries', () => {
    expect(() => hiloDataSourceFactory({ blokSize: 10 } as never)).toThrow(HiLoConfigurationError);
    expect(() => hiloDataSourceFactory({ blokSize: 10 } as never)).toThrow(/blokSize/);
    expect(() => hiloDataSourceFactory({ warm: 'yes' } as never)).toThrow(HiLoConfigurationError);
  });

  it('refuses to run without DataSource options (a forRootAsync() without useFactory)', async () => {
    await expect(hiloDataSourceFactory()(undefined)).rejects.toThrow(HiLoConfigurationError);
    await expect(hiloDataSourceFactory()(undefined)).rejects.toThrow(/useFactory/);
  });

  it('destroys the DataSource when hilo cannot be installed, so nothing stays open between Nest’s retries', async () => {
    const factory = hiloDataSourceFactory({ source: 'sequence' }); // SQLite has no sequences
    const opened: DataSource[] = [];
    const original = DataSource.prototype.initialize;
    const spy = jest.spyOn(DataSource.prototype, 'initialize').mockImplementation(async function (this: DataSource) {
      opened.push(this);
      return original.call(this);
    });
    try {
      await expect(factory({ type: 'better-sqlite3', database: db.url, entities: [Ticket] })).rejects.toThrow(
        HiLoConfigurationError,
      );
    } finally {
      spy.mockRestore();
    }
    expect(opened.map((dataSource) => dataSource.isInitialized)).toEqual([false]);
  });
});
