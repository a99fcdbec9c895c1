import 'reflect-metadata';
import { createRequire } from 'node:module';
import { DataSource, EntitySchema, type DataSourceOptions } from 'typeorm';
import { describeMysql } from '@hilo/testing';
import { hiloColumn, installHiLo } from 'hilo-typeorm';
import { loadedTypeOrmVersion } from '../src/typeorm-internals.js';

// TypeORM 0.3 connects to MariaDB/MySQL with the `mysql` package when an app has it installed (its default
// `connectorPackage`), and with mysql2 otherwise; TypeORM 1.x always uses mysql2. The `mysql` package's pool
// has callbacks only: hilo must reserve through it as through mysql2's.
const mysqlPackage: unknown = createRequire(import.meta.url)('mysql');

interface Note {
  id: number;
  body: string;
}
const Note = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'mysql_package_notes',
  columns: { id: hiloColumn(), body: { type: 'varchar', length: 20 } },
});

describeMysql(
  'typeorm on mariadb through the `mysql` package (what TypeORM 0.3 loads when an app installs it)',
  (db) => {
    it('reserves keys through the driver pool, gives keys at create(), and saves and rolls back as with mysql2', async () => {
      const line = (await loadedTypeOrmVersion())!.startsWith('0.3.') ? '0.3' : '1.x';
      // TypeORM 0.3 takes the package from `driver` exactly as it would load it; 1.x has only mysql2
      const options = {
        type: 'mariadb',
        url: db.url,
        entities: [Note],
        synchronize: true,
        ...(line === '0.3' ? { driver: mysqlPackage, connectorPackage: 'mysql' } : {}),
      };
      const dataSource = new DataSource(options as DataSourceOptions);
      await dataSource.initialize();
      try {
        const pool = (
          dataSource.driver as unknown as { pool: { promise?: unknown; config?: { connectionConfig?: unknown } } }
        ).pool;
        // mysql2's callback pool has promise(); the `mysql` package's has not
        expect(typeof pool.promise).toBe(line === '0.3' ? 'undefined' : 'function');
        const hilo = await installHiLo(dataSource, { blockSize: 5 });
        const notes = dataSource.getRepository(Note);
        // blocks of 5: the batch of 12 asks for its keys first, in one reservation for the shortfall
        await hilo.ensure(Note, 12);
        const created = Array.from({ length: 12 }, (_, i) => notes.create({ body: `n${i}` }));
        expect(created.every((note) => typeof note.id === 'number')).toBe(true);
        await notes.save(created.slice(0, 6));
        const keys = created.map((note) => note.id);
        await expect(
          dataSource.transaction(async (manager) => {
            await manager.save(Note, created.slice(6));
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        const later = await Promise.all(Array.from({ length: 12 }, () => hilo.next(Note)));
        expect(later.filter((key) => keys.includes(key as number))).toEqual([]);
        expect((await notes.find()).map((note) => note.id).sort((a, b) => a - b)).toEqual(
          keys.slice(0, 6).sort((a, b) => a - b),
        );
      } finally {
        await dataSource.destroy();
      }
    });
  },
);
