// Headroom: how far a segment's keys are from the largest value its key column holds, and one warning at 90 %.
import { describePostgres } from '@hilo/testing';
import pg from 'pg';
import type { HiLoEvent } from '../src/engine/events.js';
import { createHiLoGenerator } from '../src/engine/generator.js';
import { connect } from '../src/operations/connect.js';
import { sequenceSource } from '../src/operations/sources.js';

const INT_MAX = 2_147_483_647;

describePostgres('headroom of an int key column', (db) => {
  it(
    'reports keyspaceUsed in stats() and warns once, with an event and a process warning, when a ' +
      'block passes 90 % of maxKey',
    async () => {
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      // a segment at 85 % of an int column: the first blocks are below 90 %, later ones pass it
      await admin.query(`create sequence near_hilo_seq start with ${Math.floor(INT_MAX * 0.85)} increment by 50000000`);
      await admin.end();
      const events: HiLoEvent[] = [];
      const warnings: unknown[][] = [];
      const emitWarning = process.emitWarning;
      process.emitWarning = (...args: unknown[]) => void warnings.push(args);
      const client = await connect(db.url);
      const hilo = createHiLoGenerator({
        source: sequenceSource(client, { increment: 50_000_000, create: false }),
        blockSize: 50_000_000,
        adaptive: false,
        prefetchAt: false,
        maxKey: INT_MAX,
        segments: { roomy: { maxKey: 2n ** 63n - 1n } },
        onEvent: (event) => events.push(event),
      });
      try {
        await hilo.next('near');
        expect(hilo.stats().near!.keyspaceUsed).toBeCloseTo(0.85 + 50_000_000 / INT_MAX, 2);
        expect(events.filter((e) => e.type === 'headroom')).toEqual([]);
        await hilo.ensure('near', 100_000_000); // one more block: it ends above 90 %
        await hilo.ensure('near', 100_000_000); // and another: still one warning
        const headroom = events.filter((e) => e.type === 'headroom');
        expect(headroom).toHaveLength(1);
        expect(headroom[0]).toMatchObject({ segment: 'near', maxKey: BigInt(INT_MAX) });
        expect((headroom[0] as { used: number }).used).toBeGreaterThanOrEqual(0.9);
        expect(warnings).toEqual([
          [
            expect.stringMatching(
              /segment "near" has reserved keys up to \d+, 9\d\.\d % of its maxKey 2147483647.*int → bigint/,
            ),
            { code: 'HILO_HEADROOM' },
          ],
        ]);
      } finally {
        process.emitWarning = emitWarning;
        await hilo.close();
        await client.close();
      }
    },
  );

  it('refuses a maxKey that is not a positive integer, naming the option', () => {
    expect(() => createHiLoGenerator({ source: { description: 'x', reserve: async () => [] }, maxKey: 0 })).toThrow(
      /`maxKey`.*int column/,
    );
    expect(() =>
      createHiLoGenerator({ source: { description: 'x', reserve: async () => [] }, segments: { a: { maxKey: -1n } } }),
    ).toThrow(/`segments\.a\.maxKey`/);
  });
});
