import { describePostgres } from '@hilo/testing';
import type { SqlClient } from 'hilo-core';
import { connect } from '../src/operations/connect.js';
import { runAlterSuite } from './alter-suite.js';

runAlterSuite('postgres');

// Why alterBlockSize exists: PostgreSQL's own ALTER returns last_value + the new increment next, inside the
// last pooled-lo block when the increment shrinks.
describePostgres('postgres: a bare ALTER SEQUENCE … INCREMENT BY', (db) => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(db.url);
  });
  afterAll(async () => {
    await client.close();
  });

  it('should overlap the last pooled-lo block when the increment shrinks', async () => {
    await client.query('create sequence bare_seq increment by 100 minvalue 1 start with 1');
    const { rows } = await client.query<{ v: string }>("select nextval('bare_seq')::text as v");
    expect(rows[0]!.v).toBe('1'); // the block [1, 100]
    await client.query('alter sequence bare_seq increment by 40');
    const { rows: after } = await client.query<{ v: string }>("select nextval('bare_seq')::text as v");
    expect(after[0]!.v).toBe('41'); // [41, 80]: inside [1, 100]
  });
});
