import pg from 'pg';
import { describePostgres } from '@hilo/testing';

describePostgres('harness: postgres', (db) => {
  it('gives each test file a fresh database', async () => {
    const client = new pg.Client(db.url);
    await client.connect();
    const { rows } = await client.query<{ current_database: string }>('select current_database()');
    await client.end();
    expect(rows[0]?.current_database).toBe(db.name);
  });
});
