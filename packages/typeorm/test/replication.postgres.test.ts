// Apps behind a read replica configure TypeORM with `replication`: writes and reservations must go to the
// primary (a replica refuses nextval and UPDATE), reads may go to a replica. The replica here is a second,
// empty database, so that any hilo object or row that lands there shows.
import 'reflect-metadata';
import { DataSource, EntitySchema } from 'typeorm';
import { createPostgresDatabase, describePostgres, postgresContents } from '@hilo/testing';
import { hiloColumn, hiloOf, withHiLo } from 'hilo-typeorm';

interface Note {
  id: number;
  body: string;
}
const Note = new EntitySchema<Note>({
  name: 'Note',
  tableName: 'replicated_notes',
  columns: { id: hiloColumn({ blockSize: 10 }), body: { type: 'varchar', length: 20 } },
});

describePostgres('typeorm: a DataSource with a read replica (replication)', (db) => {
  it('reserves on the primary, gives keys at create(), and saves there; the replica sees none of it', async () => {
    const replica = await createPostgresDatabase();
    const dataSource = withHiLo(
      new DataSource({
        type: 'postgres',
        replication: { master: { url: db.url }, slaves: [{ url: replica.url }] },
        entities: [Note],
        synchronize: true,
      }),
    );
    try {
      await dataSource.initialize();
      const notes = dataSource.getRepository(Note);
      await hiloOf(dataSource).ensure(Note, 25); // blocks of 10: the batch asks for its keys first
      const created = Array.from({ length: 25 }, (_, i) => notes.create({ body: `n${i}` }));
      expect(created.every((note) => Number.isInteger(note.id))).toBe(true);
      await dataSource.transaction((manager) => manager.save(Note, created));
      expect(await hiloOf(dataSource).next(Note)).toBeGreaterThan(Math.max(...created.map((note) => note.id)));
      expect(await postgresContents(db.url, 'replicated_notes')).toEqual({ sequences: 1, rows: 25 });
      expect(await postgresContents(replica.url, 'replicated_notes')).toEqual({ sequences: 0, rows: -1 });
      // the replica is really in use: TypeORM reads there, where the table does not exist
      await expect(notes.count()).rejects.toThrow(/replicated_notes/);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await replica.drop();
    }
  });
});
