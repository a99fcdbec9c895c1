import { describeMysql } from '@hilo/testing';
import type { SqlClient, SqlResult } from 'hilo-core';
import { connect } from '../src/operations/connect.js';
import { ensureSchema } from '../src/operations/schema.js';
import { raiseFloor } from '../src/operations/floor.js';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import { segmentStatus } from '../src/operations/status.js';
import { expectPreparesOnceUnderRace } from './prepare-race.js';

const signal = new AbortController().signal;

describeMysql('mariadb sources', (db) => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(db.url);
  });
  afterAll(async () => {
    await client.close();
  });

  it('should fetch several increments of a MariaDB sequence in one statement', async () => {
    const source = sequenceSource(client, { increment: 10 });
    expect(await source.reserve('bulk', { size: 35, signal })).toEqual([{ first: 1n, last: 40n }]);
    expect(await source.reserve('bulk', { size: 1, signal })).toEqual([{ first: 41n, last: 50n }]);
  });

  /** The client, counting the statements it sends and optionally hiding the UPDATE's insert id. */
  function observed(inner: SqlClient, hideInsertId = false): SqlClient & { statements: string[] } {
    const statements: string[] = [];
    const strip = <Row>(result: SqlResult<Row>): SqlResult<Row> => {
      if (!hideInsertId) return result;
      const { insertId: _hidden, ...rest } = result;
      return rest;
    };
    return {
      dialect: inner.dialect,
      statements,
      async query<Row>(sql: string, params?: readonly unknown[]) {
        statements.push(sql);
        return strip(await inner.query<Row>(sql, params));
      },
      transaction(work) {
        statements.push('start transaction');
        return inner.transaction((tx) =>
          work({
            async query<Row>(sql: string, params?: readonly unknown[]) {
              statements.push(sql);
              return strip(await tx.query<Row>(sql, params));
            },
          }),
        );
      },
      close: () => inner.close(),
    };
  }

  it('should reserve from a table in one autocommit statement, the value read from the UPDATE itself', async () => {
    const counted = observed(client);
    const source = tableSource(counted, { table: 'hilo_one_trip' });
    await source.prepare?.('orders', signal);
    counted.statements.length = 0;
    const first = await source.reserve('orders', { size: 100, signal });
    const second = await source.reserve('orders', { size: 100, signal });
    expect([...first, ...second]).toEqual([
      { first: 1n, last: 100n },
      { first: 101n, last: 200n },
    ]);
    expect(counted.statements).toHaveLength(2);
    expect(counted.statements.every((sql) => /^update .* last_insert_id\(/i.test(sql))).toBe(true);
  });

  it('should read the value back in a transaction when the client does not report it, never reusing the unreported block', async () => {
    const hidden = observed(client, true);
    const plain = tableSource(client, { table: 'hilo_fallback' });
    const blind = tableSource(hidden, { table: 'hilo_fallback' });
    await plain.prepare?.('orders', signal);
    const blocks = [];
    for (let round = 0; round < 5; round++) {
      blocks.push(...(await blind.reserve('orders', { size: 10, signal })));
      blocks.push(...(await plain.reserve('orders', { size: 10, signal })));
    }
    const keys = blocks.flatMap((b) =>
      Array.from({ length: Number(b.last - b.first + 1n) }, (_, i) => b.first + BigInt(i)),
    );
    expect(new Set(keys).size).toBe(keys.length);
    // the first UPDATE advanced the row without telling its value: those ten keys are a gap
    expect(keys).not.toContain(1n);
    expect(hidden.statements).toContain('select cast(last_insert_id() as char) as v');
  });

  it('should give exact blocks past 2^53 (the driver reports the value as a string there)', async () => {
    const source = tableSource(client, { table: 'hilo_big' });
    await source.prepare?.('orders', signal);
    await client.query("update hilo_big set next_value = 9007199254740990 where segment = 'orders'");
    // odd numbers past 2^53 have no double: only an exact value can end in ...089
    expect(await source.reserve('orders', { size: 100, signal })).toEqual([
      { first: 9007199254740990n, last: 9007199254741089n },
    ]);
  });

  it('should hand out hilo blocks from a table (hi × maxLo, never key 0)', async () => {
    const source = tableSource(client, { table: 'hilo_classic', strategy: 'hilo', increment: 1000 });
    expect(await source.reserve('orders', { size: 10, signal })).toEqual([{ first: 1n, last: 999n }]);
    expect(await source.reserve('orders', { size: 1500, signal })).toEqual([{ first: 1000n, last: 2999n }]);
  });

  it('should raise a MariaDB sequence above existing keys and never lower it', async () => {
    await client.query('create table floor_rows (id bigint primary key)');
    await client.query('insert into floor_rows values (777)');
    expect(await raiseFloor(client, { source: 'sequence', segment: 'floored', table: 'floor_rows' })).toEqual({
      segment: 'floored',
      maxKey: 777n,
      raised: true,
    });
    const source = sequenceSource(client, { increment: 100 });
    expect(await source.reserve('floored', { size: 100, signal })).toEqual([{ first: 778n, last: 877n }]);
    await client.query('delete from floor_rows');
    await client.query('insert into floor_rows values (5)');
    expect((await raiseFloor(client, { source: 'sequence', segment: 'floored', table: 'floor_rows' })).raised).toBe(
      false,
    );
    expect(await source.reserve('floored', { size: 100, signal })).toEqual([{ first: 878n, last: 977n }]);
  });

  it('should create schema objects once when many processes prepare at the same time', () =>
    expectPreparesOnceUnderRace(db.url));

  it('should list table rows and sequences in status()', async () => {
    await ensureSchema(client, { source: 'table', table: 'status_hi', segments: ['a', 'b'] });
    await ensureSchema(client, { source: 'sequence', segments: ['listed'], increment: 5 });
    const found = await segmentStatus(client, { table: 'status_hi' });
    expect(found.filter((s) => s.source === 'table').map((s) => [s.segment, s.value])).toEqual([
      ['a', 1n],
      ['b', 1n],
    ]);
    expect(found.find((s) => s.segment === 'listed')).toMatchObject({ source: 'sequence', value: 1n, increment: 5n });
  });
});
