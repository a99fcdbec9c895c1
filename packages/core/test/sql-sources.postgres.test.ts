import { describePostgres, randomName } from '@hilo/testing';
import type { SqlClient } from 'hilo-core';
import { connect } from '../src/operations/connect.js';
import { ensureSchema, schemaSql } from '../src/operations/schema.js';
import { raiseFloor } from '../src/operations/floor.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import { segmentStatus } from '../src/operations/status.js';
import { type SqlExecutor } from '../src/sql/sql-client.js';
import { expectPreparesOnceUnderRace } from './prepare-race.js';

const signal = new AbortController().signal;

/** A client that counts the statements it runs, to prove round trips. */
function counting(client: SqlClient): SqlClient & { statements: string[] } {
  const statements: string[] = [];
  return {
    ...client,
    statements,
    query<Row>(sql: string, params?: readonly unknown[]) {
      statements.push(sql);
      return client.query<Row>(sql, params);
    },
    transaction<T>(work: (tx: SqlExecutor) => Promise<T>) {
      statements.push('transaction');
      return client.transaction(work);
    },
  };
}

describePostgres('postgres sources', (db) => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(db.url);
  });
  afterAll(async () => {
    await client.close();
  });

  it('should fetch several increments of a sequence in one round trip', async () => {
    const counted = counting(client);
    const source = sequenceSource(counted, { increment: 10 });
    await source.prepare('bulk');
    counted.statements.length = 0;
    const blocks = await source.reserve('bulk', { size: 35, signal });
    expect(counted.statements).toHaveLength(1);
    expect(blocks).toEqual([{ first: 1n, last: 40n }]);
  });

  it('should map sequence values with the pooled and hilo strategies', async () => {
    const pooled = sequenceSource(client, { increment: 50, strategy: 'pooled', name: (s) => `${s}_pooled` });
    expect(await pooled.reserve('p', { size: 50, signal })).toEqual([{ first: 1n, last: 50n }]);
    expect(await pooled.reserve('p', { size: 50, signal })).toEqual([{ first: 51n, last: 100n }]);
    const hilo = sequenceSource(client, { increment: 1000, strategy: 'hilo', name: (s) => `${s}_hilo` });
    await client.query('create sequence "h_hilo" as bigint increment by 1 minvalue 0 start with 2');
    expect(await hilo.reserve('h', { size: 3, signal })).toEqual([{ first: 2000n, last: 2999n }]);
  });

  it('should share an EF Core HiLo sequence (pooled-lo, INCREMENT BY 10), adopt its increment, or refuse it when fixed', async () => {
    await client.query('create sequence "EntityFrameworkHiLoSequence" start with 1 increment by 10');
    const efNext = await client.query<{ v: string }>(`select nextval('"EntityFrameworkHiLoSequence"')::text as v`);
    expect(efNext.rows[0]!.v).toBe('1');
    const ours = sequenceSource(client, { increment: 10, name: () => 'EntityFrameworkHiLoSequence' });
    expect(await ours.reserve('any', { size: 10, signal })).toEqual([{ first: 11n, last: 20n }]);
    // a different configured increment reserves in units of the real one: each value is still [v, v + 10)
    const adopting = sequenceSource(client, { increment: 100, name: () => 'EntityFrameworkHiLoSequence' });
    expect(await adopting.reserve('any', { size: 25, signal })).toEqual([{ first: 21n, last: 50n }]);
    const fixed = sequenceSource(client, {
      increment: 100,
      fixedIncrement: 'incrementBy',
      name: () => 'EntityFrameworkHiLoSequence',
    });
    await expect(fixed.prepare('any')).rejects.toThrow(
      /INCREMENT BY 10, but `incrementBy` is 100.*Set `incrementBy: 10`/,
    );
  });

  it('should raise a sequence restarted below max(id) above it (Quarkus #31899)', async () => {
    await client.query('create table quarkus_rows (id bigint primary key)');
    const source = sequenceSource(client, { increment: 50 });
    const [block] = await source.reserve('quarkus', { size: 50, signal });
    await client.query(`insert into quarkus_rows select generate_series(${block!.first}, ${block!.last})`);
    await client.query('alter sequence quarkus_hilo_seq restart with 1');
    const result = await raiseFloor(client, { segment: 'quarkus', table: 'quarkus_rows' });
    expect(result).toEqual({ segment: 'quarkus', maxKey: 50n, raised: true });
    const [next] = await source.reserve('quarkus', { size: 50, signal });
    expect(next!.first).toBe(51n);
  });

  it('should create schema objects once when many processes prepare at the same time', () =>
    expectPreparesOnceUnderRace(db.url));

  it('should create what schemaSql describes, idempotently, and list it in status()', async () => {
    const schema = randomName('s');
    await client.query(`create schema ${schema}`);
    for (const sql of schemaSql({ dialect: 'postgres', source: 'table', schema, segments: ['orders', 'items'] })) {
      await client.query(sql);
      await client.query(sql);
    }
    await ensureSchema(client, { source: 'sequence', schema, segments: ['orders'], increment: 20 });
    await ensureSchema(client, { source: 'sequence', schema, segments: ['orders'], increment: 20 });
    const table = tableSource(client, { schema, create: false });
    expect(await table.reserve('items', { size: 5, signal })).toEqual([{ first: 1n, last: 5n }]);
    await sequenceSource(client, { schema, increment: 20, create: false }).reserve('orders', { size: 20, signal });
    expect(await segmentStatus(client, { schema })).toEqual([
      { segment: 'items', source: 'table', object: `"${schema}"."hilo_segments"`, value: 6n },
      { segment: 'orders', source: 'table', object: `"${schema}"."hilo_segments"`, value: 1n },
      { segment: 'orders', source: 'sequence', object: `"${schema}"."orders_hilo_seq"`, value: 1n, increment: 20n },
    ]);
  });

  it('should tell to run hilo init when create is false and the sequence is missing', async () => {
    await expect(sequenceSource(client, { increment: 10, create: false }).prepare('missing')).rejects.toThrow(
      /"missing_hilo_seq" of segment "missing" does not exist\. Run `hilo init missing`/,
    );
  });
});
