// Issue 54: PGlite (PostgreSQL in the process; the database of `prisma dev`) has one session, which the application
// uses too. hilo's pgliteClient() keys from a sequence (nextval is never rolled back), refuses the table source, never
// joins the application's transaction (a reservation asked for inside one fails at once, naming warm()/ensure()), and
// a PGlite instance given where a pool belongs is refused, naming pgliteClient().
import { PGlite } from '@electric-sql/pglite';
import {
  HiLoConfigurationError,
  HiLoSourceError,
  connect,
  createHiLo,
  pgClient,
  pgliteClient,
  type PgPoolLike,
} from '../src/index.js';

describe('pgliteClient(): hilo on PGlite', () => {
  // one instance (starting PGlite's WebAssembly takes seconds); each test keys a table of its own
  let db: PGlite;
  let tables = 0;
  let orders = '';
  beforeAll(() => {
    db = new PGlite();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    orders = `orders_${++tables}`;
    await db.query(`create table ${orders} (id bigint primary key, note text not null)`);
  });

  it('keys from a sequence, two generators on one instance never share a key, and close() leaves the instance open', async () => {
    const client = pgliteClient(db);
    const [a, b] = [
      createHiLo({ client, blockSize: 10, keyType: 'bigint' }),
      createHiLo({ client, blockSize: 10, keyType: 'bigint' }),
    ];
    const keys = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).next(orders)));
    expect(new Set(keys).size).toBe(60);
    await a.close();
    await b.close();
    await client.close();
    const { rows } = await db.query<{ n: string }>(
      `select count(*)::text as n from pg_class where relname = '${orders}_hilo_seq'`,
    );
    expect(rows).toEqual([{ n: '1' }]);
  });

  it('serves keys in hand inside a transaction; a reservation needed there fails at once, naming warm()/ensure()', async () => {
    const hilo = createHiLo({ client: pgliteClient(db), blockSize: 5, prefetchAt: false, adaptive: false });
    try {
      await hilo.warm([orders]);
      const error = await db
        .transaction(async (tx) => {
          // five keys in hand: served from memory, inside the application's transaction
          for (let i = 0; i < 5; i++) {
            const id = await hilo.next(orders);
            await tx.query(`insert into ${orders} (id, note) values ($1, $2)`, [id, 'in tx']);
          }
          // the sixth needs a reservation, which the one session cannot run while this transaction holds it
          await hilo.next(orders);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // at once, by the check before the statement: waiting on the session would end in a HiLoExhaustedError of
      // timed-out attempts after the retry budget instead
      expect(error).toBeInstanceOf(HiLoSourceError);
      expect((error as Error).message).toMatch(/inside your application's transaction.*warm\(\).*ensure\(/s);
      // the transaction rolled back: its rows are gone, and the keys it used are never handed out again
      expect((await db.query(`select * from ${orders}`)).rows).toEqual([]);
      const after = await hilo.next(orders);
      expect(after).toBeGreaterThan(5);
      await db.query(`insert into ${orders} (id, note) values ($1, $2)`, [after, 'after']);
    } finally {
      await hilo.close();
    }
  });

  it("never checks the in-process server: a long transaction keeps the keys in hand, and the session stays the app's", async () => {
    // PGlite runs in this process: no standby, no failover, nothing a server check could learn. A check would take
    // the one session every serverCheckMs, and during the application's transaction it could only be refused
    let hiloQueries = 0;
    const counted = new Proxy(db, {
      get(target, name) {
        const value: unknown = Reflect.get(target, name, target);
        if (name === 'query') {
          return (...args: Parameters<PGlite['query']>) => {
            hiloQueries++;
            return target.query(...args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const events: string[] = [];
    const hilo = createHiLo({
      client: pgliteClient(counted),
      blockSize: 10,
      prefetchAt: false,
      adaptive: false,
      serverCheckMs: 10,
      onEvent: (event) => events.push(event.type),
    });
    try {
      await hilo.warm([orders]);
      const afterWarm = hiloQueries;
      await db.transaction(async (tx) => {
        // timers fire in the order they are due: every 10 ms check falls due before this 100 ms pause ends
        await new Promise((resolve) => setTimeout(resolve, 100));
        for (let i = 0; i < 10; i++) {
          const id = await hilo.next(orders);
          await tx.query(`insert into ${orders} (id, note) values ($1, $2)`, [id, 'long tx']);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      // ten keys from the block in hand; not one statement from hilo since warm(), in the transaction or after it
      expect(hiloQueries).toBe(afterWarm);
      expect((await db.query(`select count(*)::int as n from ${orders}`)).rows).toEqual([{ n: 10 }]);
      expect(events).not.toContain('server-unconfirmed');
    } finally {
      await hilo.close();
    }
    expect(() => createHiLo({ client: pgliteClient(db), synchronousStandby: true })).toThrow(
      /PostgreSQL inside this process has no statement/,
    );
  });

  it('a rolled-back transaction never gives its keys back: a new generator starts above them', async () => {
    const first = createHiLo({ client: pgliteClient(db), blockSize: 10, prefetchAt: false });
    await first.warm([orders]);
    const used: number[] = [];
    await db
      .transaction(async (tx) => {
        for (let i = 0; i < 3; i++) {
          const id = await first.next(orders);
          used.push(id);
          await tx.query(`insert into ${orders} (id, note) values ($1, $2)`, [id, 'undone']);
        }
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await first.close();
    const second = createHiLo({ client: pgliteClient(db), blockSize: 10 });
    try {
      const next = await second.next(orders);
      expect(next).toBeGreaterThan(Math.max(...used));
    } finally {
      await second.close();
    }
  });

  it('refuses the table source, a PGlite instance given as a pool, and a PGlite URL, each naming what to use', async () => {
    expect(() => createHiLo({ client: pgliteClient(db), source: 'table' })).toThrow(HiLoConfigurationError);
    expect(() => createHiLo({ client: pgliteClient(db), source: 'table' })).toThrow(/sequence source/);
    expect(() => pgClient(db as unknown as PgPoolLike)).toThrow(/pgliteClient\(db\)/);
    await expect(connect('memory://')).rejects.toThrow(/pgliteClient\(db\)/);
    expect(() => pgliteClient({} as never)).toThrow(HiLoConfigurationError);
  });
});
