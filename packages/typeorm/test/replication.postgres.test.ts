// Apps behind a read replica configure TypeORM with `replication`: writes and reservations must go to the
// primary (a replica refuses nextval and UPDATE), reads may go to a replica. The replica here is a second,
// empty database, so that any hilo object or row that lands there shows.
import 'reflect-metadata';
import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import { createPostgresDatabase, describePostgres } from '@hilo/testing';
import { hiloColumn, hiloOf, withHiLo } from 'hilo-typeorm';

interface Note {
  id: number;
  body: string;
}
const Note = new EntitySchema<Note>({ name: 'Note', tableName: 'replicated_notes', columns: { id: hiloColumn({ blockSize: 10 }), body: { type: 'varchar', length: 20 } } });

/** The sequences and the rows of the notes table in one database (no notes table: -1 rows). */
async function contents(url: string): Promise<{ sequences: number; notes: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sequences = Number((await client.query(`select count(*) as n from pg_class where relkind = 'S'`)).rows[0].n);
    const exists = (await client.query(`select to_regclass('replicated_notes') as t`)).rows[0].t !== null;
    const notes = exists ? Number((await client.query('select count(*) as n from replicated_notes')).rows[0].n) : -1;
    return { sequences, notes };
  } finally {
    await client.end();
  }
}

describePostgres('typeorm: a DataSource with a read replica (replication)', (db) => {
  it('reserves on the primary, gives keys at create(), and saves there; the replica sees none of it', async () => {
    const replica = await createPostgresDatabase();
    const dataSource = withHiLo(
      new DataSource({ type: 'postgres', replication: { master: { url: db.url }, slaves: [{ url: replica.url }] }, entities: [Note], synchronize: true }),
    );
    try {
      await dataSource.initialize();
      const notes = dataSource.getRepository(Note);
      await hiloOf(dataSource).ensure(Note, 25); // blocks of 10: the batch asks for its keys first
      const created = Array.from({ length: 25 }, (_, i) => notes.create({ body: `n${i}` }));
      expect(created.every((note) => Number.isInteger(note.id))).toBe(true);
      await dataSource.transaction((manager) => manager.save(Note, created));
      expect(await hiloOf(dataSource).next(Note)).toBeGreaterThan(Math.max(...created.map((note) => note.id)));
      expect(await contents(db.url)).toEqual({ sequences: 1, notes: 25 });
      expect(await contents(replica.url)).toEqual({ sequences: 0, notes: -1 });
      // the replica is really in use: TypeORM reads there, where the table does not exist
      await expect(notes.count()).rejects.toThrow(/replicated_notes/);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await replica.drop();
    }
  });
});
