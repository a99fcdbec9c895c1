// Issue 54, "Cloudflare D1 (miniflare)": d1Client() runs hilo on a D1 binding, on miniflare's local D1 (workerd). D1
// has no interactive transactions (BEGIN is refused, each statement commits on its own, batch() is all or none):
// reservations are one UPDATE … RETURNING through `atomic`, the key guard is installed with one batch, and a second
// statement in one transaction is refused before it runs. sqliteClient() given a D1 binding hands it to d1Client()
// instead of crashing on D1's asynchronous statements (`rows.filter is not a function`).
import { fileURLToPath } from 'node:url';
import type { D1Database } from '@cloudflare/workers-types/index.ts';
import { describeD1, type D1Binding } from '@hilo/testing';
import {
  HiLoConfigurationError,
  HiLoSourceError,
  HiLoSourceUnavailableError,
  HiLoStoreBehindError,
  createHiLo,
  d1Client,
  ensureKeyGuard,
  sqliteClient,
  type D1DatabaseLike,
  type SqliteDatabaseLike,
} from '../src/index.js';
import { isTransientDriverError } from '../src/kit.js';

// Cloudflare's own type of `env.DB` is what d1Client() takes (a compile-time check: it fails the typecheck if not)
export const takesCloudflaresType = (db: D1Database): D1DatabaseLike => db;

describeD1('d1Client(): hilo on Cloudflare D1', (d1) => {
  let tables = 0;
  let orders = '';
  let db: D1Binding;
  beforeEach(async () => {
    db = d1.database();
    orders = `orders_${++tables}`;
    await db.prepare(`create table ${orders} (id integer primary key, note text not null)`).run();
  });

  const insert = (binding: D1Binding, id: number | bigint, note: string) =>
    binding.prepare(`insert into ${orders} (id, note) values (?, ?)`).bind(Number(id), note).run();
  const storedIds = async () =>
    (await db.prepare(`select id from ${orders} order by id`).all<{ id: number }>()).results.map((r) => r.id);

  it('hands out keys before the insert, from a hilo_segments row it creates; close() leaves the binding usable', async () => {
    const hilo = createHiLo({ client: d1Client(db), blockSize: 10 });
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) {
      const id = await hilo.next(orders);
      ids.push(id);
      await insert(db, id, `order ${i}`);
    }
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await storedIds()).toEqual(ids);
    const row = await db
      .prepare('select cast(next_value as text) as v from hilo_segments where segment = ?')
      .bind(orders)
      .first<{ v: string }>();
    expect(BigInt(row!.v)).toBeGreaterThan(25n);
    await hilo.close();
    expect(await storedIds()).toHaveLength(25);
  });

  it('two generators on two bindings of one database (two Workers) never hand out a key twice', async () => {
    const other = await d1.anotherBinding();
    const a = createHiLo({ client: d1Client(db), blockSize: 7, prefetchAt: false, adaptive: false });
    const b = createHiLo({ client: d1Client(other), blockSize: 5, prefetchAt: false, adaptive: false });
    try {
      // interleaved: both reserve again and again while the other's reservations are in flight
      const keys = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const key = await (i % 2 === 0 ? a : b).next(orders);
          await insert(i % 2 === 0 ? db : other, key, `from ${i % 2 === 0 ? 'a' : 'b'}`);
          return key;
        }),
      );
      expect(new Set(keys).size).toBe(200);
      expect(await storedIds()).toHaveLength(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('runs inside a Worker on workerd: one generator kept across concurrent requests hands out each key once', async () => {
    const worker = await d1.worker(fileURLToPath(new URL('./workers/d1-worker.ts', import.meta.url)));
    expect(await worker.fetch('/setup')).toEqual({ status: 200, text: 'ready' });
    const responses = await Promise.all(Array.from({ length: 60 }, () => worker.fetch('/orders')));
    for (const response of responses) expect(response.status).toBe(200);
    const keys = responses.map((r) => Number(r.text));
    expect(new Set(keys).size).toBe(60);
    // one generator for the isolate: later requests are served from its blocks, after every key of the first 60
    const later: number[] = [];
    for (let i = 0; i < 5; i++) later.push(Number((await worker.fetch('/orders')).text));
    expect(Math.min(...later)).toBeGreaterThan(Math.max(...keys));
    const { results } = await (
      await worker.database()
    )
      .prepare('select count(*) as n, count(distinct id) as d from orders')
      .all<{ n: number; d: number }>();
    expect(results).toEqual([{ n: 65, d: 65 }]);
  });

  it('takes a function returning the current binding, asked at each statement', async () => {
    const other = await d1.anotherBinding();
    let current: D1Binding = db;
    let asked = 0;
    const hilo = createHiLo({
      client: d1Client(() => {
        asked++;
        return current;
      }),
      blockSize: 3,
      prefetchAt: false,
      adaptive: false,
    });
    const first = [await hilo.next(orders), await hilo.next(orders), await hilo.next(orders)];
    const before = asked;
    current = other; // the next request's env.DB
    const next = await hilo.next(orders);
    expect(first).toEqual([1, 2, 3]);
    expect(next).toBe(4);
    expect(asked).toBeGreaterThan(before);
    await hilo.close();
  });

  it('verified blocks refuse a block overlapping a stored key, and a new hi row starts above the rows', async () => {
    const storedKeys = [{ segment: orders, table: orders, column: 'id' }];
    // rows inserted before hilo: the row hilo creates starts above them
    for (const id of [1, 2, 40]) await insert(db, id, 'before hilo');
    const hilo = createHiLo({ client: d1Client(db), blockSize: 10, storedKeys });
    const first = await hilo.next(orders);
    expect(first).toBeGreaterThan(40);
    await hilo.close();

    // the hi row set back (a restore): the next process's first block overlaps the stored keys and is refused
    await db.prepare('update hilo_segments set next_value = 1 where segment = ?').bind(orders).run();
    const restarted = createHiLo({ client: d1Client(db), blockSize: 10, storedKeys });
    const error = await restarted.next(orders).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoStoreBehindError);
    expect((error as HiLoStoreBehindError).table).toBe(orders);
    expect((error as Error).message).toMatch(/already holds key/);
    await restarted.close();

    // with onStoreBehind: 'lift', hilo moves the row above the keys and goes on
    const lifted = createHiLo({ client: d1Client(db), blockSize: 10, storedKeys, onStoreBehind: 'lift' });
    expect(await lifted.next(orders)).toBeGreaterThan(40);
    await lifted.close();
  });

  it('reserves keys beyond Number.MAX_SAFE_INTEGER exactly (D1 binds numbers as REAL and no bigint)', async () => {
    const start = 2n ** 60n;
    const hilo = createHiLo({ client: d1Client(db), blockSize: 10, keyType: 'bigint' });
    await hilo.next(orders); // creates the row
    await db.prepare('update hilo_segments set next_value = ? where segment = ?').bind(start.toString(), orders).run();
    await hilo.close();
    const big = createHiLo({ client: d1Client(db), blockSize: 10, keyType: 'bigint' });
    expect([await big.next(orders), await big.next(orders)]).toEqual([start, start + 1n]);
    const row = await db
      .prepare('select cast(next_value as text) as v from hilo_segments where segment = ?')
      .bind(orders)
      .first<{ v: string }>();
    // the value above the keys handed out, to the last digit (a REAL would have rounded it to a multiple of 256)
    expect(BigInt(row!.v) - start).toBeGreaterThanOrEqual(2n);
    expect(BigInt(row!.v) - start).toBeLessThanOrEqual(20n);
    await big.close();
    // a bigint parameter binds as the exact INTEGER, wherever its placeholder is; `?` in quotes and comments is text
    const { rows } = await d1Client(db).query(
      "select '?' as q, typeof(?) as a, ?1 as b, cast(?2 as text) as c, ? as d /* ? */ -- ?\n",
      [5n, 2n ** 62n + 1n, 'text'],
    );
    expect(rows).toEqual([{ q: '?', a: 'integer', b: 5, c: '4611686018427387905', d: 'text' }]);
  });

  it('installs the key guard with one batch: a row without a key is refused, and installing again keeps it', async () => {
    const client = d1Client(db);
    const target = { segment: orders, table: orders, column: 'id' };
    await ensureKeyGuard(client, [target]);
    await ensureKeyGuard(client, [target]);
    const refused = await db
      .prepare(`insert into ${orders} (note) values ('no key')`)
      .run()
      .catch((e: unknown) => e);
    expect(String((refused as Error).message)).toMatch(
      new RegExp(`a row of segment '${orders}' arrived without a key`),
    );
    await insert(db, 7, 'with a key');
    expect(await storedIds()).toEqual([7]);
    // a table that does not exist: refused before anything runs, naming the table
    await expect(ensureKeyGuard(client, [{ segment: 'nope', table: 'no_such_table', column: 'id' }])).rejects.toThrow(
      /no_such_table/,
    );
  });

  it('batch() runs statements all or none', async () => {
    const client = d1Client(db);
    await expect(
      client.batch!([
        { sql: `insert into ${orders} (id, note) values (?, ?)`, params: [1, 'one'] },
        { sql: `insert into ${orders} (id, note) values (?, ?)`, params: [1, 'the same key'] },
      ]),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await storedIds()).toEqual([]);
    const results = await client.batch!([
      { sql: `insert into ${orders} (id, note) values (?, ?)`, params: [1, 'one'] },
      { sql: `select count(*) as n from ${orders}` },
    ]);
    expect(results.map((r) => r.affectedRows)).toEqual([1, 0]);
    expect(results[1]!.rows).toEqual([{ n: 1 }]);
  });

  it('transaction() runs one statement and refuses a second before it runs', async () => {
    const client = d1Client(db);
    const one = await client.transaction((tx) => tx.query(`insert into ${orders} (id, note) values (?, ?)`, [1, 'x']));
    expect(one.affectedRows).toBe(1);
    const error = await client
      .transaction(async (tx) => {
        await tx.query(`insert into ${orders} (id, note) values (?, ?)`, [2, 'first']);
        await tx.query(`insert into ${orders} (id, note) values (?, ?)`, [3, 'second']);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoSourceError);
    expect((error as Error).message).toMatch(/no interactive transactions.*client\.batch/s);
    // the first committed on its own; the second never ran
    expect(await storedIds()).toEqual([1, 2]);
    // D1 itself refuses BEGIN: what an ordinary SQLite transaction would send
    await expect(client.query('begin immediate')).rejects.toThrow(/transaction/i);
  });

  it('sqliteClient(d1) hands the binding to d1Client() instead of crashing, and refuses file-connection options', async () => {
    const binding = db as unknown as SqliteDatabaseLike;
    const client = sqliteClient(binding);
    expect(client.dialect).toBe('sqlite');
    expect(typeof client.batch).toBe('function');
    const hilo = createHiLo({ client, blockSize: 5 });
    expect([await hilo.next(orders), await hilo.next(orders)]).toEqual([1, 2]);
    await hilo.close();
    expect(sqliteClient(binding, { ownsDatabase: false }).dialect).toBe('sqlite');
    for (const options of [{ lockHeldHere: () => false }, { busyTimeoutMs: 100 }, { ownsDatabase: true }]) {
      const option = Object.keys(options)[0]!;
      expect(() => sqliteClient(binding, options)).toThrow(HiLoConfigurationError);
      expect(() => sqliteClient(binding, options)).toThrow(new RegExp(`\`${option}\`.*d1Client\\(env\\.DB\\)`));
    }
  });

  it('refuses what is not a D1 binding, and reports a missing hi table with create: false', async () => {
    expect(() => d1Client(42 as never)).toThrow(HiLoConfigurationError);
    expect(() => d1Client({ prepare: () => ({}) } as never)).toThrow(/Cloudflare D1 binding/);
    const broken = d1Client((() => undefined) as never);
    await expect(broken.query('select 1')).rejects.toThrow(HiLoConfigurationError);

    const hilo = createHiLo({ client: d1Client(db), table: 'missing_hi_table', create: false });
    const error = await hilo.next(orders).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoSourceError);
    expect((error as Error).message).toMatch(/no such table: missing_hi_table/);
    expect((error as HiLoSourceError).hint?.library).toMatch(/hilo init/);
    await hilo.close();
  });

  it("classifies D1's retryable errors as transient, and a SQL error as not", async () => {
    for (const message of [
      'D1_ERROR: Network connection lost.',
      'D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.',
      'D1_ERROR: Durable Object reset because its code was updated.',
    ])
      expect(isTransientDriverError(new Error(message), 'sqlite')).toBe(true);
    const syntax = await d1Client(db)
      .query('selec 1')
      .catch((e: unknown) => e);
    expect(isTransientDriverError(syntax, 'sqlite')).toBe(false);
    // a reservation that fails for good is a HiLoSourceError, not "unavailable"
    expect(syntax).not.toBeInstanceOf(HiLoSourceUnavailableError);
  });
});
