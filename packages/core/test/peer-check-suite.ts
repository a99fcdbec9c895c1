/**
 * Issue #46, item 7: the peer check against a plain SQL writer that inserts explicit ids inside the block hilo holds,
 * on a real database, while hilo hands out keys and stores each at once. With an interop preset's `storedKeys`, the
 * blocks in hand are probed every `peerCheckMs`: the round that starts after the writer's insert has committed
 * refuses the segment (not hilo's next reservation), and no key is handed out after the refusal. How many keys hilo
 * hands out meanwhile depends on how busy the machine is: printed, never asserted (issue #52; README-interop's
 * table). Shared by peer-check.postgres.test.ts and peer-check.mysql.test.ts; the engine's side (timer, close,
 * overlap, failures) is peer-check.test.ts, the real Hibernate hibernate-mismatch-suite.ts.
 */
import { describeDatabase } from '@hilo/testing';
import { HiLoMismatchError } from '../src/errors.js';
import { checkPeersNow, createHiLoGenerator, type HiLoGenerator } from '../src/engine/generator.js';
import type { HiLoEvent } from '../src/engine/events.js';
import { connect } from '../src/operations/connect.js';
import type { SqlClient } from '../src/sql/sql-client.js';
import { nhibernatePreset } from '../src/presets/nhibernate.js';
import type { Kind } from './presets-clients.js';
import { run } from './presets-suite.js';

/** The interval in these tests: short, so that what it lets through shows against a block's (100 keys). */
const PEER_CHECK_MS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Defines the plain-SQL-writer tests of the peer check for `kind`. */
export function peerCheckSuite(kind: Kind): void {
  const on = kind === 'postgres' ? 'PostgreSQL' : 'MariaDB';
  describeDatabase(kind, `the peer check against a plain SQL writer on ${on}`, (db) => {
    let client: SqlClient | undefined;
    const sql = () => client!;
    const generators: HiLoGenerator<bigint>[] = [];
    const p = (n: number) => (kind === 'postgres' ? `$${n}` : '?');

    beforeAll(async () => {
      client = await connect(db.url);
    }, 60_000);

    afterAll(async () => {
      // a refused generator's close() rejects with its refusal (asserted by the tests that mean it)
      for (const g of generators) await g.close().catch(() => undefined);
      await client?.close();
    });

    /**
     * A key table without a primary key (a key stored twice is counted, not refused), indexed, and hilo over an
     * NHibernate preset (max_lo 99: blocks of 100 keys) whose `storedKeys` name it: the store shared with a peer.
     */
    async function setUp(table: string, peerCheckMs: number | false) {
      await run(
        kind,
        db.url,
        `create table ${table} (id bigint not null, who varchar(20))`,
        `create index ${table}_id on ${table} (id)`,
      );
      const events: { event: HiLoEvent; at: number }[] = [];
      /** Keys handed out when the segment was refused, read as it happens. */
      let issuedAtRefusal: number | undefined;
      const issued = () => hilo.stats()[table]?.keysIssued ?? 0;
      const hilo = createHiLoGenerator({
        ...nhibernatePreset(sql(), {
          table: `${table}_hi`,
          maxLo: 99,
          storedKeys: [{ segment: table, table, column: 'id' }],
        }),
        adaptive: false,
        keyType: 'bigint',
        peerCheckMs,
        onEvent: (event) => {
          if (event.type === 'lost' && event.reason === 'mismatch') issuedAtRefusal ??= issued();
          events.push({ event, at: performance.now() });
        },
      });
      generators.push(hilo);
      const handedOut: { key: bigint; at: number }[] = [];
      /** hilo's side: takes a key, stores it, about one a millisecond, until refused; resolves with the refusal. */
      const write = async (): Promise<unknown> => {
        for (let i = 0; i < 5000; i++) {
          let key: bigint;
          try {
            key = await hilo.next(table);
          } catch (error) {
            return error;
          }
          handedOut.push({ key, at: performance.now() });
          await sql().query(`insert into ${table} (id, who) values (${p(1)}, 'hilo')`, [String(key)]);
          await sleep(1);
        }
        return undefined;
      };
      const reserved = () => events.flatMap(({ event: e }) => (e.type === 'reserved' ? e.blocks : []));
      const refusedAt = () => events.find(({ event: e }) => e.type === 'lost' && e.reason === 'mismatch')?.at;
      return { hilo, handedOut, write, reserved, refusedAt, issued, issuedAtRefusal: () => issuedAtRefusal };
    }

    /** Rows stored twice: keys both sides used. */
    async function twice(table: string): Promise<number> {
      const { rows } = await sql().query<{ d: unknown }>(`select count(*) - count(distinct id) as d from ${table}`);
      return Number(rows[0]!.d);
    }

    it('an explicit id inside the block hilo holds is refused by the next round after its insert, never handed out by hilo', async () => {
      const table = 'pc_one';
      const side = await setUp(table, PEER_CHECK_MS);
      const writing = side.write();
      while (side.handedOut.length < 10) await sleep(1);
      // the writer inserts the last key of hilo's block: hilo would reach it at the end of the block
      const block = side.reserved()[0]!;
      await sql().query(`insert into ${table} (id, who) values (${p(1)}, 'sql')`, [String(block.last)]);
      const inserted = performance.now();
      // committed: the round that starts now (or the timer's, or a reservation, if one comes first) refuses
      await checkPeersNow(side.hilo);
      expect(side.refusedAt()).toBeDefined();
      const error = await writing;
      expect(error).toBeInstanceOf(HiLoMismatchError);
      expect((error as HiLoMismatchError).overlap).toMatchObject({ table, column: 'id', storedKey: block.last });
      // not one key handed out after the refusal, and never the writer's
      expect(side.issued()).toBe(side.issuedAtRefusal());
      expect(side.handedOut.map((h) => h.key)).not.toContain(block.last);
      expect(side.reserved()).toHaveLength(1);
      expect(await twice(table)).toBe(0);
      const after = side.handedOut.filter((h) => h.at > inserted).length;
      const ms = side.refusedAt()! - inserted;
      process.stdout.write(
        `${on} plain SQL writer, one id at the end of hilo's block (peerCheckMs: ${PEER_CHECK_MS}): refused after ` +
          `${ms.toFixed(0)} ms, ${after} keys handed out by hilo after the insert\n`,
      );
    }, 60_000);

    it('a peer writing into a block hilo used up, after a round probed it: the last check at close() reports it', async () => {
      const table = 'pc_late';
      // the timer paused: the rounds run only when driven
      const side = await setUp(table, 3_600_000);
      // hilo uses up its first block of 100 keys, each stored, and takes one of the next
      for (let i = 0; i < 101; i++) {
        const key = await side.hilo.next(table);
        await sql().query(`insert into ${table} (id, who) values (${p(1)}, 'hilo')`, [String(key)]);
      }
      const used = side.reserved()[0]!;
      // a round probes the used-up block: nothing of a peer's there yet
      await checkPeersNow(side.hilo);
      expect(side.refusedAt()).toBeUndefined();
      // then the peer writes into it (Hibernate with an old hi value): one key more than hilo handed out of it
      await sql().query(`insert into ${table} (id, who) values (${p(1)}, 'sql')`, [String(used.first + 5n)]);
      // no round runs again; the run still does not end silent
      const closing = side.hilo.close();
      await expect(closing).rejects.toBeInstanceOf(HiLoMismatchError);
      expect((await closing.catch((e: unknown) => e)) as HiLoMismatchError).toMatchObject({
        overlap: { table, column: 'id' },
      });
    }, 60_000);

    /**
     * The writer inserts `ids` explicit ids at random inside hilo's block, ahead of the key hilo hands out next, about
     * one a millisecond, while hilo writes: the keys both used, with and without the peer check.
     */
    async function sharedWithWriter(table: string, peerCheckMs: number | false, ids: number) {
      const side = await setUp(table, peerCheckMs);
      const writing = side.write();
      while (side.handedOut.length < 5) await sleep(1);
      let first: number | undefined;
      let refused = false;
      void writing.then(() => (refused = true));
      for (let i = 0; i < ids && !refused; i++) {
        const block = side.reserved().at(-1)!;
        const next = side.handedOut.at(-1)!.key + 1n;
        if (next > block.last) break;
        const id = next + BigInt(Math.floor(Math.random() * Number(block.last - next + 1n)));
        await sql().query(`insert into ${table} (id, who) values (${p(1)}, 'sql')`, [String(id)]);
        first ??= performance.now();
        await sleep(1);
      }
      const error = await writing;
      // refused (by the peer check or, without it, the reservation at the prefetch mark), and no key after that
      expect(error).toBeInstanceOf(HiLoMismatchError);
      // refused holding keys: none handed out after its `lost` event (with none in hand there is no such event)
      if (side.issuedAtRefusal() !== undefined) expect(side.issued()).toBe(side.issuedAtRefusal());
      await expect(side.hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
      const after = first === undefined ? 0 : side.handedOut.filter((h) => h.at > first).length;
      const shared = await twice(table);
      const mode = peerCheckMs === false ? 'peerCheckMs: false' : `peerCheckMs: ${peerCheckMs}`;
      process.stdout.write(
        `${on} plain SQL writer, ids at random ahead of hilo in its block (${mode}): ` +
          `${error === undefined ? 'never refused' : 'refused'}, ${after} keys handed out by hilo after the writer's ` +
          `first id, ${shared} keys used by both\n`,
      );
      return { error, after, shared };
    }

    it('explicit ids at random inside the block hilo holds: refused with and without the peer check, no key after', async () => {
      // what hilo hands out after the writer's first id, and the keys both used, are printed (README-interop's table)
      await sharedWithWriter('pc_many_off', false, 300);
      await sharedWithWriter('pc_many_on', PEER_CHECK_MS, 300);
    }, 60_000);
  });
}
