// The adapters' rule for a key table the probe does not find (src/operations/probe-tables.ts, through
// adapterStoredKeys): missing at the segment's first block it counts as empty (migrations still to run) and is
// looked for again at every block; still missing at a later block, after keys were handed out, it refuses the block
// with a HiLoConfigurationError naming the table, the schema looked in and the options that fix it (or, with
// onMissingTable: 'warn', warns once and goes on).
import { describePostgres, randomName } from '@hilo/testing';
import { HiLoConfigurationError, HiLoStoreBehindError, connect, createHiLo, type SqlClient } from 'hilo-core';
import { adapterStoredKeys } from 'hilo-core/adapter-kit';

describePostgres('verified blocks: a key table the probe does not find', (db) => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await connect(db.url);
  });
  afterAll(async () => client.close());

  /** A generator of blocks of 10 whose segment `segment` stores its keys in `table` (schema `schema`). */
  const generator = (segment: string, table: string, schema?: string, onMissingTable?: 'error' | 'warn') =>
    createHiLo({
      client,
      blockSize: 10,
      prefetchAt: false,
      adaptive: false,
      storedKeys: adapterStoredKeys(
        client,
        onMissingTable === undefined ? {} : { onMissingTable },
        [{ segment, table, column: 'id', ...(schema === undefined ? {} : { schema }) }],
        'test()',
        { schemaOption: 'the schema option of the test' },
      )!,
    });
  const draw = async (hilo: { next(segment: string): Promise<number> }, segment: string, count: number) => {
    const keys: number[] = [];
    for (let i = 0; i < count; i++) keys.push(await hilo.next(segment));
    return keys;
  };

  it('a table created after the first block is checked from the next block on', async () => {
    const segment = randomName('seg');
    const hilo = generator(segment, segment);
    try {
      const first = await draw(hilo, segment, 10); // the table does not exist yet: the first block is unchecked
      // the table appears with a row inside the next block, as a store set back would leave it
      await client.query(`create table ${segment} (id bigint primary key)`);
      await client.query(`insert into ${segment} (id) values (${Math.max(...first) + 5})`);
      await expect(hilo.next(segment)).rejects.toBeInstanceOf(HiLoStoreBehindError);
    } finally {
      await hilo.close();
    }
  });

  it('an unqualified table hilo does not see but exactly one other schema has is probed there, as in public', async () => {
    const segment = randomName('seg');
    const schema = randomName('shop');
    await client.query(`create schema ${schema}`);
    try {
      await client.query(`create table ${schema}.${segment} (id bigint primary key)`);
      // rows the application wrote through a pool whose search_path hilo's connection lacks
      await client.query(`insert into ${schema}.${segment} (id) values (1), (2), (250)`);
      const hilo = generator(segment, segment);
      try {
        // a new segment starts above the largest stored key it finds: 251, not 1, so the probe read that table
        expect(await hilo.next(segment)).toBeGreaterThan(250);
      } finally {
        await hilo.close();
      }
      // set back below the stored keys, the store is refused, naming the table where the key was found
      await client.query(`alter sequence ${segment}_hilo_seq restart with 1`);
      const behind = generator(segment, segment);
      try {
        const refused = await behind.next(segment).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refused).toBeInstanceOf(HiLoStoreBehindError);
        expect((refused as HiLoStoreBehindError).message).toContain(`${schema}.${segment}`);
      } finally {
        await behind.close();
      }
      // a second schema with a table of that name: which one the application writes to cannot be told
      const other = randomName('shop');
      await client.query(`create schema ${other}`);
      try {
        await client.query(`create table ${other}.${segment} (id bigint primary key)`);
        const ambiguous = generator(segment, segment);
        try {
          expect(await draw(ambiguous, segment, 10)).toHaveLength(10); // the first block counts the table as empty
          await expect(ambiguous.next(segment)).rejects.toBeInstanceOf(HiLoConfigurationError);
        } finally {
          await ambiguous.close();
        }
      } finally {
        await client.query(`drop schema ${other} cascade`);
      }
    } finally {
      await client.query(`drop schema ${schema} cascade`);
    }
  });

  it('a table still missing after keys were handed out refuses the next block, and every later one', async () => {
    const segment = randomName('seg');
    const hilo = generator(segment, 'orders', 'shop_nowhere');
    try {
      expect(await draw(hilo, segment, 10)).toHaveLength(10);
      const refused = await hilo.next(segment).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(HiLoConfigurationError);
      const message = (refused as Error).message;
      expect(message).toContain('no table "shop_nowhere"."orders"');
      expect(message).toContain('schema "shop_nowhere"');
      expect(message).toContain('the schema option of the test');
      expect(message).toContain("onMissingTable: 'warn'");
      expect((refused as HiLoConfigurationError).retryable).toBe(false);
      await expect(hilo.next(segment)).rejects.toBeInstanceOf(HiLoConfigurationError);
    } finally {
      await hilo.close();
    }
  });

  it("onMissingTable: 'warn' warns once (HILO_STORED_KEYS_UNCHECKED) and goes on", async () => {
    const segment = randomName('seg');
    const hilo = generator(segment, segment, undefined, 'warn');
    const warnings: Array<{ message: string; code?: string }> = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
      warnings.push({ message: String(warning), ...(options?.code === undefined ? {} : { code: options.code }) });
    }) as typeof process.emitWarning;
    try {
      expect(await draw(hilo, segment, 35)).toHaveLength(35);
      expect(warnings).toEqual([
        { message: expect.stringContaining(`no table "${segment}"`), code: 'HILO_STORED_KEYS_UNCHECKED' },
      ]);
    } finally {
      process.emitWarning = emitWarning;
      await hilo.close();
    }
  });

  it('onMissingTable other than error or warn is refused', () => {
    expect(() => adapterStoredKeys(client, { onMissingTable: 'ignore' }, [], 'test()')).toThrow(
      /Expected `onMissingTable` to be "error" or "warn", got "ignore"/,
    );
  });
});
