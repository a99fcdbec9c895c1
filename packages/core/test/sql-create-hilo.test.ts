import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createHiLo, tableSource } from '../src/sql/index.js';

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
});
