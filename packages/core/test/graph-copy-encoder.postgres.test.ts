// Issue 55: hilo's own binary COPY encoder, proved by round trips through a real PostgreSQL: every value written by
// binary COPY reads back as the text PostgreSQL itself gives for it, and a table with a type the encoder does not
// cover travels as text COPY with the same result.
import { describePostgres, randomName } from '@hilo/testing';
import pg from 'pg';
import { pgGraphTarget } from '../src/dialects/postgres/graph-target.js';
import type { BulkConnection } from '../src/sql/bulk.js';

/** One type, the values written and the text PostgreSQL reads back for each (`null` for NULL). */
interface Case {
  readonly type: string;
  readonly values: readonly unknown[];
  readonly expected: readonly (string | null)[];
}

const CASES: readonly Case[] = [
  { type: 'int2', values: [0, -32768, 32767, '12', null], expected: ['0', '-32768', '32767', '12', null] },
  { type: 'int4', values: [-2147483648, 2147483647, 7n], expected: ['-2147483648', '2147483647', '7'] },
  {
    type: 'int8',
    values: [-9223372036854775808n, 9223372036854775807n, 42, '-5'],
    expected: ['-9223372036854775808', '9223372036854775807', '42', '-5'],
  },
  {
    type: 'numeric',
    values: [
      '0',
      '-0',
      '1',
      '-1.50',
      '12345678.000012345',
      '-0.0001',
      '0.00000001',
      '10000',
      '99999999999999999999999999.99',
      'NaN',
      1.25,
      -42n,
      '1.5e3',
      '2E-3',
      '.5',
    ],
    expected: [
      '0',
      '0',
      '1',
      '-1.50',
      '12345678.000012345',
      '-0.0001',
      '0.00000001',
      '10000',
      '99999999999999999999999999.99',
      'NaN',
      '1.25',
      '-42',
      '1500',
      '0.002',
      '0.5',
    ],
  },
  { type: 'numeric(10,2)', values: ['3.14159', '-2'], expected: ['3.14', '-2.00'] },
  {
    type: 'float8',
    values: [1.5, -0, 'NaN', 'Infinity', 1e-300],
    expected: ['1.5', '-0', 'NaN', 'Infinity', '1e-300'],
  },
  { type: 'float4', values: [0.5, -2], expected: ['0.5', '-2'] },
  { type: 'text', values: ['', 'héllo\tworld\n\\', '日本語 😀'], expected: ['', 'héllo\tworld\n\\', '日本語 😀'] },
  { type: 'varchar(20)', values: ['abc'], expected: ['abc'] },
  { type: 'bool', values: [true, false, null], expected: ['true', 'false', null] },
  {
    type: 'bytea',
    values: [Buffer.from([0, 1, 255]), new Uint8Array([]), new Uint8Array([92, 10])],
    expected: ['\\x0001ff', '\\x', '\\x5c0a'],
  },
  {
    type: 'uuid',
    values: ['123e4567-e89b-12d3-a456-426614174000', 'A0EEBC999C0B4EF8BB6D6BB9BD380A11'],
    expected: ['123e4567-e89b-12d3-a456-426614174000', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
  },
  {
    type: 'date',
    values: [
      '2000-01-01',
      '1999-12-31',
      '1900-02-28',
      '2024-02-29',
      new Date(Date.UTC(1970, 0, 1, 23)),
      'infinity',
      '0001-01-01',
    ],
    expected: ['2000-01-01', '1999-12-31', '1900-02-28', '2024-02-29', '1970-01-01', 'infinity', '0001-01-01'],
  },
  {
    type: 'timestamp',
    values: [
      '2024-05-01 10:00:00.123456',
      '1999-12-31T23:59:59.999999',
      '1969-07-20 20:17:40',
      new Date(Date.UTC(1950, 5, 15, 1, 2, 3, 456)),
      '2001-01-01 00:00:00.000001+05:00',
    ],
    expected: [
      '2024-05-01 10:00:00.123456',
      '1999-12-31 23:59:59.999999',
      '1969-07-20 20:17:40',
      '1950-06-15 01:02:03.456',
      '2001-01-01 00:00:00.000001',
    ],
  },
  {
    type: 'timestamptz',
    values: [
      '2024-05-01T10:00:00.123456Z',
      '2024-05-01T12:00:00.000001+02:00',
      '1901-01-01T00:00:00-03:30',
      new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)),
      '-infinity',
    ],
    expected: [
      '2024-05-01 10:00:00.123456+00',
      '2024-05-01 10:00:00.000001+00',
      '1901-01-01 03:30:00+00',
      '1999-12-31 23:59:59.999+00',
      '-infinity',
    ],
  },
  {
    type: 'json',
    values: [{ a: [1, 2], b: 'x' }, '{"raw": true}', [1, 'two'], 12],
    expected: ['{"a":[1,2],"b":"x"}', '{"raw": true}', '[1,"two"]', '12'],
  },
  {
    type: 'jsonb',
    values: [{ b: 1, a: { c: null } }, '"text"', [], 1234567890123n, { big: 9007199254740993n }],
    expected: ['{"a": {"c": null}, "b": 1}', '"text"', '[]', '1234567890123', '{"big": 9007199254740993}'],
  },
  {
    type: 'int4[]',
    values: [
      [1, 2, 3],
      [],
      [1, null, 3],
      [
        [1, 2],
        [3, 4],
      ],
    ],
    expected: ['{1,2,3}', '{}', '{1,NULL,3}', '{{1,2},{3,4}}'],
  },
  { type: 'int8[]', values: [[-1n, 9007199254740993n]], expected: ['{-1,9007199254740993}'] },
  {
    type: 'text[]',
    values: [
      ['a', 'b c', '"q"', null, ''],
      [['x'], ['y']],
    ],
    expected: ['{a,"b c","\\"q\\"",NULL,""}', '{{x},{y}}'],
  },
  { type: 'numeric[]', values: [['-1.5', 'NaN', 0]], expected: ['{-1.5,NaN,0}'] },
  {
    type: 'uuid[]',
    values: [['123e4567-e89b-12d3-a456-426614174000']],
    expected: ['{123e4567-e89b-12d3-a456-426614174000}'],
  },
  { type: 'bool[]', values: [[true, false]], expected: ['{t,f}'] },
  { type: 'date[]', values: [['1999-01-01', null]], expected: ['{1999-01-01,NULL}'] },
  { type: 'jsonb[]', values: [[{ a: 1 }, [1, 2]]], expected: ['{"{\\"a\\": 1}","[1, 2]"}'] },
  { type: 'timestamptz[]', values: [['2000-01-01T00:00:00.5Z']], expected: ['{"2000-01-01 00:00:00.5+00"}'] },
];

describePostgres('binary COPY encoder round trips', (db) => {
  let pool: pg.Pool;
  let connection: pg.PoolClient;
  let bulk: BulkConnection;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    // the harness drops the database (and its connections) after the file
    pool.on('error', () => undefined);
    connection = await pool.connect();
    connection.on('error', () => undefined);
    await connection.query(`set timezone = 'UTC'`);
    await connection.query(`create type mood as enum ('sad', 'happy')`);
    await connection.query(`create domain positive as int4 check (value > 0)`);
    bulk = await pgGraphTarget({ connection }).open();
  });
  afterAll(async () => {
    connection.release();
    await pool.end();
  });

  /** Writes `values` into a fresh table of one `type` column (and an ordering column), reads them back as text. */
  async function roundTrip(
    type: string,
    values: readonly unknown[],
    extra = '',
  ): Promise<{ texts: (string | null)[]; format: string }> {
    const table = randomName('enc');
    await connection.query(`create table ${table} (n int4, v ${type}${extra})`);
    const writer = await bulk.tableWriter({ table, schema: undefined }, ['n', 'v']);
    await writer.write(values.map((value, i) => [i, value]));
    const { rows } = await connection.query<{ v: string | null }>(`select v::text as v from ${table} order by n`);
    return { texts: rows.map((row) => row.v), format: writer.format };
  }

  it.each(CASES.map((c) => [c.type, c] as const))(
    'should write %s in binary and read back what PostgreSQL prints',
    async (_type, c) => {
      const { texts, format } = await roundTrip(c.type, c.values);
      expect(format).toBe('binary');
      expect(texts).toEqual(c.expected);
    },
  );

  it('should write enums and domains (their base type) in binary', async () => {
    expect(await roundTrip('mood', ['happy', null])).toEqual({ texts: ['happy', null], format: 'binary' });
    expect(await roundTrip('positive', [5])).toEqual({ texts: ['5'], format: 'binary' });
  });

  it('should fall back to text COPY for a table with a type the encoder does not cover, with the same values', async () => {
    const table = randomName('enc_text');
    await connection.query(
      `create table ${table} (n int4, i interval, t text, j jsonb, a int4[], b bytea, d timestamptz, x bool, m numeric)`,
    );
    const writer = await bulk.tableWriter({ table, schema: undefined }, ['n', 'i', 't', 'j', 'a', 'b', 'd', 'x', 'm']);
    expect(writer.format).toBe('text');
    await writer.write([
      [
        1,
        '1 day 02:00:00',
        'tab\there\nnew \\ line',
        { k: [1, 'a\tb'] },
        [1, null, 3],
        Buffer.from([1, 2]),
        new Date(Date.UTC(1990, 0, 2, 3, 4, 5, 6)),
        true,
        '-1.5',
      ],
      [2, null, null, [1, 2], [], null, '2001-02-03T04:05:06.123456Z', false, 'NaN'],
    ]);
    const { rows } = await connection.query(
      `select i::text, t, j::text, a::text, b::text, d::text, x, m::text from ${table} order by n`,
    );
    expect(rows).toEqual([
      {
        i: '1 day 02:00:00',
        t: 'tab\there\nnew \\ line',
        j: '{"k": [1, "a\\tb"]}',
        a: '{1,NULL,3}',
        b: '\\x0102',
        d: '1990-01-02 03:04:05.006+00',
        x: true,
        m: '-1.5',
      },
      { i: null, t: null, j: '[1, 2]', a: '{}', b: null, d: '2001-02-03 04:05:06.123456+00', x: false, m: 'NaN' },
    ]);
  });

  it('should refuse a value the column cannot take before sending it, naming what the column takes', async () => {
    const table = randomName('enc_bad');
    await connection.query(`create table ${table} (n int4, v int2)`);
    const writer = await bulk.tableWriter({ table, schema: undefined }, ['n', 'v']);
    await connection.query('begin');
    await expect(
      writer.write([
        [1, 5],
        [2, 40000],
      ]),
    ).rejects.toMatchObject({
      expected: 'an integer from -32768 to 32767 (number, bigint or digits)',
      value: 40000,
      batchRow: 1,
      columnIndex: 1,
    });
    await connection.query('rollback');
    // the connection goes on working after the aborted COPY
    await writer.write([[3, 7]]);
    expect((await connection.query(`select v from ${table}`)).rows).toEqual([{ v: 7 }]);
  });

  it('should refuse ragged multi-dimensional arrays and timestamptz text without a zone', async () => {
    await expect(roundTrip('int4[]', [[[1, 2], [3]]])).rejects.toMatchObject({
      expected: 'a rectangular array (every sub-array as long)',
    });
    await expect(roundTrip('timestamptz', ['2024-01-01 10:00'])).rejects.toMatchObject({ value: '2024-01-01 10:00' });
  });

  it('should stream a batch far larger than one chunk, awaiting the socket', async () => {
    const texts = Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'x'.repeat(i % 50)}`);
    const { texts: back } = await roundTrip('text', texts);
    expect(back).toEqual(texts);
  });
});
