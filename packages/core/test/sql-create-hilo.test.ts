import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/operations/connect.js';
import { createHiLo } from '../src/operations/create-hilo.js';
import { tableSource } from '../src/operations/sources.js';

describe('createHiLo over a SQLite table', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-create-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should hand out keys from the table and give the unused tail back at close', async () => {
    const client = await connect(`sqlite:${join(dir, 'app.db')}`);
    try {
      const hilo = createHiLo({ client, blockSize: 100, adaptive: false, prefetchAt: false });
      expect([await hilo.next('orders'), await hilo.next('orders'), await hilo.next('orders')]).toEqual([1, 2, 3]);
      await hilo.close();
      // nobody reserved after us, so keys 4…100 came back: the next block starts at 4
      expect(await tableSource(client).reserve('orders', { size: 1, signal: new AbortController().signal })).toEqual([
        { first: 4n, last: 4n },
      ]);
    } finally {
      await client.close();
    }
  });

  // adapters pass their users' options through: an option left undefined must mean its default, not a value
  it('should read options set to undefined as left out', async () => {
    const client = await connect(`sqlite:${join(dir, 'undefined.db')}`);
    try {
      const hilo = createHiLo({
        client,
        source: undefined,
        table: undefined,
        schema: undefined,
        strategy: undefined,
        create: undefined,
        blockSize: 10,
        adaptive: false,
        prefetchAt: false,
      });
      expect([await hilo.next('orders'), await hilo.next('orders')]).toEqual([1, 2]);
      await hilo.close();
      // the default hi table, created on first use, with the default strategy (pooled-lo: the next block's first key)
      expect((await client.query('SELECT next_value FROM hilo_segments WHERE segment = ?', ['orders'])).rows).toEqual([
        { next_value: 3 },
      ]);
    } finally {
      await client.close();
    }
  });

  // issue 17: blockSize was ignored as max_lo (1000 per hi), so a hi table shared with a tool using another max_lo overlapped
  it('should use blockSize as max_lo of the table hilo strategy', async () => {
    const client = await connect(`sqlite:${join(dir, 'maxlo.db')}`);
    try {
      const options = {
        client,
        source: 'table',
        strategy: 'hilo',
        blockSize: 10,
        adaptive: false,
        prefetchAt: false,
      } as const;
      const first = createHiLo(options);
      const a = await first.next('orders');
      const second = createHiLo(options);
      const b = await second.next('orders');
      // blocks of 10 keys per hi: both keys lie in the first hi values, not 1000 apart
      expect(a).toBeLessThan(10);
      expect(b % 10).toBe(0);
      expect(b).toBeLessThan(100);
      await first.close();
      await second.close();
    } finally {
      await client.close();
    }
  });
});

describe('createHiLo refuses options its source would ignore', () => {
  // refused before any statement: a client that could not run one is enough
  const postgres = { dialect: 'postgres' } as unknown as Parameters<typeof createHiLo>[0]['client'];

  it('should refuse `table` with the sequence source, naming the option and both fixes', () => {
    expect(() => createHiLo({ client: postgres, table: 'my_hi' })).toThrow(
      /`table: "my_hi"` applies to `source: 'table'` only.*the default on PostgreSQL.*Set `source: 'table'`.*or remove `table`/,
    );
    expect(() => createHiLo({ client: postgres, source: 'sequence', table: 'my_hi' })).toThrow(
      expect.objectContaining({ code: 'HILO_CONFIGURATION' }),
    );
  });
});
