import { describeDatabase } from '@hilo/testing';
import { createHiLo } from '../src/operations/create-hilo.js';
import { connect } from '../src/operations/connect.js';

/**
 * Issue #15: an application redeployed with `blockSize` 100 → 250 → 40 on one database starts every time and
 * never repeats a key. Each deployment is two generators on their own connections (two replicas), drawing
 * interleaved across several block boundaries, then closed (the restart).
 */
export function runBlockSizeChangeSuite(kind: 'postgres' | 'mysql'): void {
  describeDatabase(kind, `${kind}: blockSize changed between deployments`, (db) => {
    for (const source of ['sequence', 'table'] as const) {
      it(`should start after blockSize 100 → 250 → 40 and never repeat a key (${source})`, async () => {
        const segment = `redeploy_${source}`;
        const seen = new Set<bigint>();
        const duplicates: bigint[] = [];
        for (const blockSize of [100, 250, 40]) {
          const replicas = await Promise.all([0, 1].map(() => connect(db.url)));
          try {
            const generators = replicas.map((client) =>
              createHiLo({ client, source, blockSize, keyType: 'bigint', adaptive: false }),
            );
            // 3 blocks' worth per replica, interleaved, so reservations of the two replicas alternate
            const draws = await Promise.all(
              generators.map(async (generator) => {
                const keys: bigint[] = [];
                for (let i = 0; i < blockSize * 3; i++) keys.push(await generator.next(segment));
                return keys;
              }),
            );
            for (const key of draws.flat()) {
              if (seen.has(key)) duplicates.push(key);
              seen.add(key);
            }
            await Promise.all(generators.map((generator) => generator.close()));
          } finally {
            await Promise.all(replicas.map((client) => client.close()));
          }
        }
        expect(duplicates).toEqual([]);
        expect(seen.size).toBe(2 * 3 * (100 + 250 + 40));
      });
    }
  });
}
