import { Customer } from './entities.js';
import { openDataSource } from './data-source.js';
import type { SuiteDatabase } from './sqlite.js';
import { runChild } from './child-process.js';

/**
 * Keys stay unique however the application behaves: rolled-back transactions, several DataSources,
 * several processes. Runs against a real hi source of `kind`.
 */
export function uniquenessSuite(db: SuiteDatabase, kind: 'sequence' | 'table', { processes = true } = {}): void {
  // Small blocks and no prefetch, so reservations happen in the middle of the application's work.
  const options = { source: kind, blockSize: 5, adaptive: false, prefetchAt: false } as const;

  it('never hands out a key again after the transaction that used it rolled back', async () => {
    const first = await openDataSource(db, options);
    const rolledBack: number[] = [];
    try {
      await expect(
        first.dataSource.transaction(async (manager) => {
          const batch = Array.from({ length: 12 }, (_, i) => manager.create(Customer, { name: `rolled back ${i}` }));
          await manager.save(batch);
          rolledBack.push(...batch.map((c) => c.id));
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(new Set(rolledBack).size).toBe(12);
      expect(await first.dataSource.getRepository(Customer).countBy(rolledBack.map((id) => ({ id })))).toBe(0);

      const second = await openDataSource(db, options, { synchronize: false });
      try {
        const later = [
          ...(await first.dataSource.manager.save(
            Array.from({ length: 15 }, (_, i) => first.dataSource.manager.create(Customer, { name: `a ${i}` })),
          )),
          ...(await second.dataSource.manager.save(
            Array.from({ length: 15 }, (_, i) => second.dataSource.manager.create(Customer, { name: `b ${i}` })),
          )),
        ].map((c) => c.id);
        expect(later.filter((id) => rolledBack.includes(id))).toEqual([]);
        expect(new Set(later).size).toBe(30);
      } finally {
        await second.dataSource.destroy();
      }
    } finally {
      await first.dataSource.destroy();
    }
  });

  // Child processes cost seconds each: the caller runs this once per database, with its default source, and only
  // against the workspace's TypeORM. Each older release gets its processes from the conformance suite
  // (conformance.*.test.ts, "no duplicates across processes"), whose workers run that release.
  if (!processes || (globalThis as { HILO_TYPEORM_VERSION?: string }).HILO_TYPEORM_VERSION !== undefined) return;
  it('gives two DataSources in two processes disjoint keys', async () => {
    // the tables exist (created by the test above); each child saves 8 batches of 25 customers
    const runs = await Promise.all([
      runChild<number[]>('save-customers', [db.kind, db.url, '8', '25', kind]),
      runChild<number[]>('save-customers', [db.kind, db.url, '8', '25', kind]),
    ]);
    const [a, b] = runs;
    expect(a).toHaveLength(200);
    expect(b).toHaveLength(200);
    const all = new Set([...a, ...b]);
    expect(all.size).toBe(400);
    const check = await openDataSource(db, { ...options, warm: false }, { synchronize: false });
    try {
      expect(await check.dataSource.getRepository(Customer).countBy([...all].map((id) => ({ id })))).toBe(400);
    } finally {
      await check.dataSource.destroy();
    }
  }, 60_000);
}
