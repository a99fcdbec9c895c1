import { describeDatabase } from '@hilo/testing';
import type { SqlClient } from 'hilo-core';
import { alterBlockSize } from '../src/operations/alter.js';
import { connect } from '../src/operations/connect.js';
import { sequenceSource } from '../src/operations/sources.js';

const signal = new AbortController().signal;

/**
 * Issue #15: changing a pooled-lo sequence's INCREMENT BY with `alterBlockSize` (`hilo alter`) never lets the
 * next block overlap one handed out before — growing and shrinking.
 */
export function runAlterSuite(kind: 'postgres' | 'mysql'): void {
  describeDatabase(kind, `${kind}: alterBlockSize`, (db) => {
    let client: SqlClient;
    beforeAll(async () => {
      client = await connect(db.url);
    });
    afterAll(async () => {
      await client.close();
    });

    it('should shrink 100 → 40 → 7 and grow 7 → 250 with every block after the last one handed out', async () => {
      const segment = 'shrinking';
      let last = 0n;
      let size = 100;
      for (const next of [40, 7, 250]) {
        const before = sequenceSource(client, { increment: size });
        for (let i = 0; i < 3; i++) {
          for (const block of await before.reserve(segment, { size, signal })) {
            expect(block.first).toBeGreaterThan(last);
            last = block.last;
          }
        }
        expect(await alterBlockSize(client, { segment, blockSize: next })).toEqual({
          segment,
          from: BigInt(size),
          to: BigInt(next),
        });
        size = next;
        // a fresh process with the new block size: its first block starts after the last one of the old size
        const after = sequenceSource(client, { increment: size });
        const [first] = await after.reserve(segment, { size, signal });
        expect(first!.first).toBeGreaterThan(last);
        expect(first!.last - first!.first + 1n).toBe(BigInt(size));
        last = first!.last;
      }
    });

    it('should leave an unchanged increment alone and name a missing sequence', async () => {
      await sequenceSource(client, { increment: 10 }).prepare('same');
      expect(await alterBlockSize(client, { segment: 'same', blockSize: 10 })).toEqual({
        segment: 'same',
        from: 10n,
        to: 10n,
      });
      await expect(alterBlockSize(client, { segment: 'nowhere', blockSize: 10 })).rejects.toThrow(
        /does not exist.*hilo init nowhere/,
      );
    });
  });
}
