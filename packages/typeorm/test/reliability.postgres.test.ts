// hilo-typeorm under network faults between hilo and PostgreSQL (the fault proxy of @hilo/testing sits on
// hilo's own connection; the DataSource talks to the database directly), and headroom read from the key
// column's type.
import 'reflect-metadata';
import pg from 'pg';
import { Column, DataSource, Entity } from 'typeorm';
import { describePostgres, timed, useFaultProxy, withReservationCuts } from '@hilo/testing';
import { HiLoExhaustedError, connect, type HiLoEvent } from 'hilo-core';
import { HiLoGeneratedColumn, hiloOf, installHiLo, type HiLoTypeOrmOptions } from 'hilo-typeorm';

@Entity('fault_notes')
class FaultNote {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 50 }) text!: string;
}

@Entity('int_notes')
class IntNote {
  @HiLoGeneratedColumn({ type: 'int' }) id!: number;
}

@Entity('bigint_notes')
class BigintNote {
  @HiLoGeneratedColumn() id!: number;
}

const INT_MAX = 2_147_483_647;

describePostgres("typeorm: network faults on hilo's connection to PostgreSQL", (db) => {
  const faults = useFaultProxy(db);

  /** A DataSource on the database, with hilo reserving through the proxy (`direct`: straight to the database). */
  async function app(options: HiLoTypeOrmOptions, direct = false): Promise<DataSource> {
    const dataSource = new DataSource({ type: 'postgres', url: db.url, entities: [FaultNote], synchronize: true });
    await dataSource.initialize();
    const client = await connect(direct ? db.url : faults.proxy.url(db.url));
    faults.onCleanup(() => client.close());
    faults.onCleanup(async () => (dataSource.isInitialized ? dataSource.destroy() : undefined));
    await installHiLo(dataSource, { client, ...options });
    return dataSource;
  }

  it(
    'a stalled link: create() keeps getting keys from the block in hand, an insert that needs a ' +
      'block fails with a typed error within the budget, and saves work again after heal',
    async () => {
      const dataSource = await app({
        blockSize: 20,
        adaptive: false,
        prefetchAt: false,
        // 1 s, not 300 ms: the start-up reservation through the proxy timed out on a loaded machine (load 20)
        timeoutMs: 1000,
        retryBudgetMs: 2000,
        retryBaseDelayMs: 10,
      });
      const notes = dataSource.getRepository(FaultNote);
      faults.proxy.stall();
      const inHand = Array.from({ length: 20 }, (_, i) => notes.create({ text: `in hand ${i}` }));
      expect(inHand.every((note) => typeof note.id === 'number')).toBe(true);
      await notes.save(inHand); // the database itself is reachable; only hilo's link is stalled
      const { error } = await timed(() => notes.save(notes.create({ text: 'one too many' })));
      expect(error).toBeInstanceOf(HiLoExhaustedError);
      // ended by the budget set here, not measured in ms (issue #52; the test's timeout is the hang detector)
      expect((error as Error).message).toMatch(/the limit set by `retryBudgetMs` \(2000 ms\)/);
      faults.proxy.heal();
      const after = await notes.save(notes.create({ text: 'after heal' }));
      expect(after.id).toBeGreaterThan(Math.max(...inHand.map((note) => note.id)));
      expect(await notes.count()).toBe(21);
    },
    30_000,
  );

  it(
    'connections cut right after a reservation statement reached the server: every row saved, no ' +
      'key twice, across two DataSources',
    async () => {
      const options = { blockSize: 5, adaptive: false, prefetchAt: false, timeoutMs: 3000 } as const;
      const throughProxy = await app(options);
      const direct = await app(options, true);
      const rowsBefore = await direct.getRepository(FaultNote).count();
      const ids: number[] = [];
      const cuts = await withReservationCuts(faults.proxy, 12, async (round) => {
        for (const dataSource of [throughProxy, direct]) {
          const repo = dataSource.getRepository(FaultNote);
          await hiloOf(dataSource).ensure(FaultNote, 7);
          const saved = await repo.save(Array.from({ length: 7 }, (_, i) => repo.create({ text: `r${round}-${i}` })));
          ids.push(...saved.map((note) => note.id));
        }
      });
      expect(cuts).toBeGreaterThanOrEqual(6);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await direct.getRepository(FaultNote).count()).toBe(rowsBefore + 12 * 14);
    },
    60_000,
  );

  it('destroy() on a stalled link returns within closeTimeoutMs and counts the unused keys as lost', async () => {
    const events: HiLoEvent[] = [];
    const dataSource = await app({
      source: 'table',
      blockSize: 50,
      adaptive: false,
      prefetchAt: false,
      closeTimeoutMs: 400,
      onEvent: (event) => events.push(event),
    });
    dataSource.getRepository(FaultNote).create({ text: 'one' });
    // the segment's sequence was created by an earlier test with its block size: count what this one holds
    const unused = hiloOf(dataSource).generator.stats().fault_notes!.keysReserved - 1;
    expect(unused).toBeGreaterThanOrEqual(49);
    faults.proxy.stall();
    const closing = await timed(() => dataSource.destroy());
    expect(closing.error).toBeUndefined();
    // ended by closeTimeoutMs on a link that never answers, not measured in ms (issue #52; the test's timeout is the
    // hang detector): every unused key counted lost, none given back
    expect(events.filter((e) => e.type === 'lost')).toEqual([
      { type: 'lost', segment: 'fault_notes', keys: unused, reason: 'close' },
    ]);
    faults.proxy.cut();
  }, 30_000);
});

describePostgres("typeorm: headroom from the key column's type", (db) => {
  it("warns when an int key column's segment passes 90 % of 2,147,483,647, and not for a bigint column at the same keys", async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const start = Math.floor(INT_MAX * 0.95);
    await admin.query(`create sequence int_notes_hilo_seq start with ${start} increment by 100`);
    await admin.query(`create sequence bigint_notes_hilo_seq start with ${start} increment by 100`);
    await admin.end();
    const events: HiLoEvent[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = () => undefined;
    const dataSource = new DataSource({
      type: 'postgres',
      url: db.url,
      entities: [IntNote, BigintNote],
      synchronize: true,
    });
    await dataSource.initialize();
    try {
      await installHiLo(dataSource, { blockSize: 100, onEvent: (event) => events.push(event) });
      expect(events.filter((e) => e.type === 'headroom')).toEqual([
        {
          type: 'headroom',
          segment: 'int_notes',
          highestKey: BigInt(start + 99),
          maxKey: BigInt(INT_MAX),
          used: (start + 99) / INT_MAX,
        },
      ]);
      const stats = hiloOf(dataSource).generator.stats();
      expect(stats.int_notes!.keyspaceUsed).toBeCloseTo(0.95, 3);
      expect(stats.bigint_notes!.keyspaceUsed).toBeLessThan(1e-9);
    } finally {
      process.emitWarning = emitWarning;
      await dataSource.destroy();
    }
  });
});
