// TypeORM runs a MariaDB/MySQL DataSource with `replication` on a pool cluster, whose connections may be a
// replica's: hilo refuses to guess, names `client`, and with `client` on the primary reserves there while
// TypeORM writes through its cluster's primary. The replica here is a second, empty database.
import 'reflect-metadata';
import { createRequire } from 'node:module';
import { DataSource, EntitySchema, type DataSourceOptions } from 'typeorm';
import { connect, HiLoConfigurationError } from 'hilo-core';
import { createMysqlDatabase, describeMysql } from '@hilo/testing';
import { hiloColumn, hiloOf, installHiLo } from 'hilo-typeorm';

interface Note {
  id: number;
  body: string;
}
const Note = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'replicated_notes',
  columns: { id: hiloColumn({ blockSize: 10 }), body: { type: 'varchar', length: 20 } },
});

/** The tables of one database. */
async function tables(url: string): Promise<string[]> {
  const mysql = createRequire(import.meta.url)('mysql2/promise') as typeof import('mysql2/promise');
  const connection = await mysql.createConnection(url);
  try {
    const [rows] = await connection.query(
      'select table_name as name from information_schema.tables where table_schema = database() order by 1',
    );
    return (rows as Array<{ name: string }>).map((row) => row.name);
  } finally {
    await connection.end();
  }
}

describeMysql('typeorm: a MariaDB DataSource with a read replica (replication)', (db) => {
  it('refuses the pool cluster naming `client`, and with `client` on the primary keeps every hi/lo write there', async () => {
    const replica = await createMysqlDatabase();
    const options = {
      type: 'mariadb',
      replication: { master: { url: db.url }, slaves: [{ url: replica.url }] },
      entities: [Note],
      synchronize: true,
    };
    const dataSource = new DataSource(options as DataSourceOptions);
    const client = await connect(db.url);
    try {
      await dataSource.initialize();
      const refused = await installHiLo(dataSource).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(HiLoConfigurationError);
      expect((refused as Error).message).toMatch(
        /replication pool cluster; pass `client: await connect\(primaryUrl\)`/,
      );

      const hilo = await installHiLo(dataSource, { client });
      const notes = dataSource.getRepository(Note);
      await hilo.ensure(Note, 25); // blocks of 10: the batch asks for its keys first
      const created = Array.from({ length: 25 }, (_, i) => notes.create({ body: `n${i}` }));
      expect(created.every((note) => Number.isInteger(note.id))).toBe(true);
      await dataSource.transaction((manager) => manager.save(Note, created));
      expect(await hilo.next(Note)).toBeGreaterThan(Math.max(...created.map((note) => note.id)));
      expect(hiloOf(dataSource)).toBe(hilo);
      const counted: Array<{ count: number | string }> = await dataSource.query(
        'select count(*) as count from replicated_notes',
      );
      expect(Number(counted[0]?.count)).toBe(25);
      expect(await tables(db.url)).toEqual(['hilo_columns', 'hilo_segments', 'replicated_notes']); // hilo_columns: issue 52
      expect(await tables(replica.url)).toEqual([]);
      // the replica is really in use: TypeORM reads there, where the table does not exist
      await expect(notes.count()).rejects.toThrow(/replicated_notes/);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await client.close(); // the client passed in stays the caller's
      await replica.drop();
    }
  });
});
