// hilo-mikro-orm under network faults between hilo and PostgreSQL (the fault proxy of @hilo/testing sits on
// hilo's own connection; MikroORM talks to the database directly), and headroom read from the key column's type.
import { MikroORM, defineEntity, p } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import pg from 'pg';
import { describePostgres, timed, useFaultProxy, withReservationCuts } from '@hilo/testing';
import { HiLoExhaustedError, connect, type HiLoEvent } from 'hilo-core';
import { HiLo, hiloKey, hiloKeyOptions, type HiLoOptions } from '../src/index.js';
import { initOrm } from './support/compat.js';

const Memo = defineEntity({ name: 'Memo', tableName: 'fault_memos', properties: { id: hiloKey(), text: p.string() } });
const IntMemo = defineEntity({
  name: 'IntMemo',
  tableName: 'int_memos',
  properties: {
    id: p
      .integer()
      .primary()
      .autoincrement(false)
      .onCreate(hiloKeyOptions().onCreate as never),
  },
});
const BigintMemo = defineEntity({ name: 'BigintMemo', tableName: 'bigint_memos', properties: { id: hiloKey() } });

const INT_MAX = 2_147_483_647;

async function execute(url: string, statements: readonly string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const sql of statements) await admin.query(sql);
  } finally {
    await admin.end();
  }
}

describePostgres("mikro-orm: network faults on hilo's connection to PostgreSQL", (db) => {
  const faults = useFaultProxy(db);

  beforeAll(async () => {
    await execute(db.url, ['create table fault_memos (id bigint primary key, text varchar(255) not null)']);
  });

  /** An ORM on the database, with hilo reserving through the proxy (`direct`: straight to the database). */
  async function app(options: HiLoOptions, direct = false): Promise<MikroORM> {
    const client = await connect(direct ? db.url : faults.proxy.url(db.url));
    faults.onCleanup(() => client.close());
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [Memo],
      extensions: [HiLo.configure({ client, ...options })],
    });
    let closed = false;
    faults.onCleanup(async () => (closed ? undefined : orm.close()));
    const close = orm.close.bind(orm);
    orm.close = async (force?: boolean) => {
      closed = true;
      return close(force);
    };
    return orm;
  }

  it(
    'a stalled link: em.create() keeps getting keys from the block in hand, a flush that needs a ' +
      'block fails with a typed error within the budget, and flushes work again after heal',
    async () => {
      const orm = await app({
        blockSize: 20,
        adaptive: false,
        prefetchAt: false,
        // 300 ms was too little for the start-up reservation through the proxy on a loaded machine (a CI run at
        // load 15 timed out in orm init, before the stall this test is about)
        timeoutMs: 1000,
        retryBudgetMs: 2000,
        retryBaseDelayMs: 10,
      });
      faults.proxy.stall();
      const em = orm.em.fork();
      const inHand = Array.from({ length: 20 }, (_, i) => em.create(Memo, { text: `in hand ${i}` }));
      expect(inHand.every((memo) => typeof memo.id === 'number')).toBe(true);
      await em.flush(); // the database itself is reachable; only hilo's link is stalled
      const late = orm.em.fork();
      late.create(Memo, { text: 'one too many' });
      const { error } = await timed(() => late.flush());
      expect(error).toBeInstanceOf(HiLoExhaustedError);
      // ended by the budget set here, not measured in ms (issue #52; the test's timeout is the hang detector)
      expect((error as Error).message).toMatch(/the limit set by `retryBudgetMs` \(2000 ms\)/);
      faults.proxy.heal();
      const healed = orm.em.fork();
      const after = healed.create(Memo, { text: 'after heal' });
      await healed.flush();
      expect(after.id).toBeGreaterThan(Math.max(...inHand.map((memo) => memo.id)));
      expect(await orm.em.fork().count(Memo, { text: { $like: 'in hand%' } })).toBe(20);
    },
    30_000,
  );

  it(
    'connections cut right after a reservation statement reached the server: every row flushed, ' +
      'no key twice, across two ORMs',
    async () => {
      const options = { blockSize: 5, adaptive: false, prefetchAt: false, timeoutMs: 3000 } as const;
      const throughProxy = await app(options);
      const direct = await app(options, true);
      const before = await direct.em.fork().count(Memo);
      const ids: number[] = [];
      const cuts = await withReservationCuts(faults.proxy, 12, async (round) => {
        for (const orm of [throughProxy, direct]) {
          const em = orm.em.fork();
          const memos = Array.from({ length: 7 }, (_, i) => em.create(Memo, { text: `r${round}-${i}` }));
          await em.flush();
          ids.push(...memos.map((memo) => memo.id));
        }
      });
      expect(cuts).toBeGreaterThanOrEqual(6);
      expect(new Set(ids).size).toBe(ids.length);
      expect(await direct.em.fork().count(Memo)).toBe(before + 12 * 14);
    },
    60_000,
  );

  it('orm.close() on a stalled link returns within closeTimeoutMs and counts the unused keys as lost', async () => {
    const events: HiLoEvent[] = [];
    const orm = await app({
      source: 'table',
      blockSize: 50,
      adaptive: false,
      prefetchAt: false,
      closeTimeoutMs: 400,
      onEvent: (event) => events.push(event),
    });
    orm.em.fork().create(Memo, { text: 'one' });
    const unused = HiLo.generator(orm).stats().fault_memos!.keysReserved - 1;
    expect(unused).toBeGreaterThanOrEqual(49);
    faults.proxy.stall();
    const closing = await timed(() => orm.close());
    expect(closing.error).toBeUndefined();
    // ended by closeTimeoutMs on a link that never answers, not measured in ms (issue #52; the test's timeout is the
    // hang detector): every unused key counted lost, none given back
    expect(events.filter((e) => e.type === 'lost')).toEqual([
      { type: 'lost', segment: 'fault_memos', keys: unused, reason: 'close' },
    ]);
    faults.proxy.cut();
  }, 30_000);
});

describePostgres("mikro-orm: headroom from the key column's type", (db) => {
  it("warns when an integer key column's segment passes 90 % of 2,147,483,647, and not for a bigint column at the same keys", async () => {
    const start = Math.floor(INT_MAX * 0.95);
    await execute(db.url, [
      `create sequence int_memos_hilo_seq start with ${start} increment by 100`,
      `create sequence bigint_memos_hilo_seq start with ${start} increment by 100`,
    ]);
    const events: HiLoEvent[] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = () => undefined;
    const orm = await initOrm({
      driver: PostgreSqlDriver,
      clientUrl: db.url,
      entities: [IntMemo, BigintMemo],
      extensions: [HiLo.configure({ blockSize: 100, onEvent: (event) => events.push(event) })],
    });
    try {
      expect(events.filter((e) => e.type === 'headroom')).toEqual([
        {
          type: 'headroom',
          segment: 'int_memos',
          highestKey: BigInt(start + 99),
          maxKey: BigInt(INT_MAX),
          used: (start + 99) / INT_MAX,
        },
      ]);
      const stats = HiLo.generator(orm).stats();
      expect(stats.int_memos!.keyspaceUsed).toBeCloseTo(0.95, 3);
      expect(stats.bigint_memos!.keyspaceUsed).toBeLessThan(1e-9);
    } finally {
      process.emitWarning = emitWarning;
      await orm.close();
    }
  });
});
