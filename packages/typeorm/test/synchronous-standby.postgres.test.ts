import 'reflect-metadata';
import { Column, DataSource, Entity } from 'typeorm';
import { describePostgres } from '@hilo/testing';
import { openKeySupply } from 'hilo-core/adapter-kit';
import { HiLoGeneratedColumn, withHiLo } from 'hilo-typeorm';

// Issue 40: `synchronousStandby` reaches hilo-core from the adapters, with the other hi source options. The
// suite's PostgreSQL has no standby, so the option must refuse at start with the error that names the fix
// (the failover suites prove what it does with a real synchronous standby).

@Entity('sync_standby_orders')
class Order {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'int' }) total!: number;
}

describePostgres('synchronousStandby through the adapters', (db) => {
  it('TypeORM: withHiLo() with synchronousStandby refuses a server without a synchronous standby at start', async () => {
    const dataSource = withHiLo(
      new DataSource({ type: 'postgres', url: db.url, entities: [Order], synchronize: true }),
      // start-up waits up to timeoutMs for a standby on its way before it refuses
      { synchronousStandby: true, timeoutMs: 500 },
    );
    await expect(dataSource.initialize()).rejects.toMatchObject({ code: 'HILO_NO_SYNC_STANDBY' });
    expect(dataSource.isInitialized).toBe(false);
  });

  it('the adapter kit (Prisma, Drizzle, Kysely) passes it through, and leaves it off by default', async () => {
    // no standby may still mean one on its way (a leader Patroni promoted moments ago): next() waits and retries
    // within the budget, then fails with the standby error as its cause (issue 47)
    const strict = openKeySupply(
      { url: db.url, synchronousStandby: true, timeoutMs: 500, retryBudgetMs: 1000 },
      'test()',
    );
    try {
      const error = await (await strict.generator()).next('sync_standby_kit').then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string; cause?: { code?: string } },
      );
      expect(error?.code).toBe('HILO_EXHAUSTED');
      expect(error?.cause?.code).toBe('HILO_NO_SYNC_STANDBY');
      expect(error?.message).toMatch(/`synchronousStandby: true` needs a synchronous standby/);
    } finally {
      await strict.close();
    }
    const plain = openKeySupply({ url: db.url }, 'test()');
    try {
      expect(await (await plain.generator()).next('sync_standby_kit')).toBeGreaterThan(0);
    } finally {
      await plain.close();
    }
  });
});
