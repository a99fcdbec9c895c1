import { defineEntity, p, type MikroORM } from '@mikro-orm/core';
import { describeMysql, describePostgres, type TestDatabase } from '@hilo/testing';
import { HiLo, hiloKey } from '../../src/index.js';
import { openOrm, type Kind, type StatementLog } from './orm.js';
import { compatVersion, createSchema } from './compat.js';
import { HiLoConfigurationError } from 'hilo-core';

/** A subscriber is found by its e-mail: the unique property an upsert conflicts on. */
export const Subscriber = defineEntity({
  name: 'Subscriber',
  tableName: 'subscribers',
  properties: {
    id: hiloKey(),
    email: p.string().unique(),
    name: p.string(),
  },
});

interface SubscriberRow {
  id: number;
  email: string;
  name: string;
}

/** Takes every key left in memory, so that the next key needs a reservation. */
function drain(orm: MikroORM): void {
  const generator = HiLo.generator(orm.em);
  while (generator.tryNextSync('subscribers') !== undefined) {
    // keys burnt on purpose: gaps, never duplicates
  }
}

/** `em.upsert()`/`em.upsertMany()` with hi/lo keys on one database. */
export function upsertSuite(kind: Exclude<Kind, 'sqlite'>): void {
  const describeDb = kind === 'postgres' ? describePostgres : describeMysql;
  describeDb(`mikro-orm upsert on ${kind}`, (db: TestDatabase) => {
    let orm: MikroORM;
    let log: StatementLog;
    beforeAll(async () => {
      ({ orm, log } = await openOrm(kind, db.url, [Subscriber], { blockSize: 5, adaptive: false, prefetchAt: false }));
      await createSchema(orm);
    });
    afterAll(() => orm.close());

    if (compatVersion?.startsWith('6.')) {
      // MikroORM 6's upsert runs no onCreate hook: hilo refuses rows it cannot key rather than write no key
      it('refuses, before any SQL, an upsert() or upsertMany() whose rows have no key, naming MikroORM 7', async () => {
        drain(orm);
        log.clear();
        const em = orm.em.fork();
        await expect(em.upsert(Subscriber, { email: 'ada@example.com', name: 'Ada' })).rejects.toThrow(
          HiLoConfigurationError,
        );
        await expect(em.upsertMany(Subscriber, [{ email: 'b@example.com', name: 'B' }])).rejects.toThrow(
          /Subscriber\.id without a key cannot insert a hi\/lo key on MikroORM 6.*Upgrade to MikroORM 7/,
        );
        const fresh = orm.em.fork();
        await expect(fresh.upsert(fresh.create(Subscriber, { email: 'c@example.com', name: 'C' }))).rejects.toThrow(
          /on MikroORM 6/,
        );
        expect(log.statements).toEqual([]);
      });

      it('upserts a row that carries its key, by that key, as MikroORM 6 does', async () => {
        const id = await HiLo.generator(orm.em).next('subscribers');
        const em = orm.em.fork();
        const saved = (await em.upsert(Subscriber, {
          id,
          email: 'keyed@example.com',
          name: 'Keyed',
        } as never)) as SubscriberRow;
        expect(saved.id).toBe(id);
        const stored = (await orm.em.fork().findOneOrFail(Subscriber, { email: 'keyed@example.com' })) as SubscriberRow;
        expect(stored.id).toBe(id);
      });
      return;
    }

    it('inserts with a hi/lo key even when no key is in memory at the moment upsert() is called', async () => {
      drain(orm);
      const em = orm.em.fork();
      const ada = (await em.upsert(Subscriber, { email: 'ada@example.com', name: 'Ada' })) as SubscriberRow;
      expect(typeof ada.id).toBe('number');
      expect(ada.id).toBeGreaterThan(0);
      const stored = (await orm.em.fork().findOneOrFail(Subscriber, { email: 'ada@example.com' })) as SubscriberRow;
      expect(stored.id).toBe(ada.id);
    });

    it('updates an existing row by its unique property and never rewrites its key', async () => {
      const em = orm.em.fork();
      const first = (await em.upsert(Subscriber, { email: 'grace@example.com', name: 'Grace' })) as SubscriberRow;
      drain(orm);
      const again = (await orm.em
        .fork()
        .upsert(Subscriber, { email: 'grace@example.com', name: 'Grace Hopper' })) as SubscriberRow;
      expect(again.id).toBe(first.id);
      const rows = (await orm.em.fork().find(Subscriber, { email: 'grace@example.com' })) as SubscriberRow[];
      expect(rows.map((r) => [r.id, r.name])).toEqual([[first.id, 'Grace Hopper']]);
    });

    it('upsertMany() of more rows than a block, from an empty memory: one key each, all distinct', async () => {
      drain(orm);
      log.clear();
      const rows = Array.from({ length: 23 }, (_, n) => ({ email: `s${n}@example.com`, name: `S${n}` }));
      const saved = (await orm.em.fork().upsertMany(Subscriber, rows)) as SubscriberRow[];
      expect(saved).toHaveLength(23);
      expect(new Set(saved.map((s) => s.id)).size).toBe(23);
      const stored = (await orm.em.fork().find(Subscriber, { email: { $like: 's%@example.com' } })) as SubscriberRow[];
      expect(stored.map((s) => s.id).sort((a, b) => a - b)).toEqual(saved.map((s) => s.id).sort((a, b) => a - b));
    });

    it('upserts an entity from em.create() whose key came from memory, keyed by its unique property', async () => {
      const em = orm.em.fork();
      const existing = (await em.upsert(Subscriber, { email: 'edsger@example.com', name: 'Edsger' })) as SubscriberRow;
      const fresh = orm.em.fork();
      drain(orm);
      const entity = fresh.create(Subscriber, { email: 'edsger@example.com', name: 'E. W. Dijkstra' }) as SubscriberRow;
      const merged: SubscriberRow = await fresh.upsert(entity);
      const rows = (await orm.em.fork().find(Subscriber, { email: 'edsger@example.com' })) as SubscriberRow[];
      expect(rows.map((r) => [r.id, r.name])).toEqual([[existing.id, 'E. W. Dijkstra']]);
      expect(merged.name).toBe('E. W. Dijkstra');
    });
  });
}
