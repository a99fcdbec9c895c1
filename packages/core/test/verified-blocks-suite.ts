// Issue 39, DESIGN rule 6: a process started after the hi store fell behind the rows never hands out a stored
// key. It refuses with HiLoStoreBehindError (naming the `hilo floor` fix) or, with onStoreBehind: 'lift', moves the
// store above the rows (never backwards) and goes on; `create: true` creates a missing store above the rows. And
// correct concurrent writers never raise the alarm.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeDatabase, randomName, workerMapping } from '@hilo/testing';
import {
  HiLoStoreBehindError,
  connect,
  createHiLo,
  type HiLoEvent,
  type HiLoGenerator,
  type SqlClient,
} from 'hilo-core';
import { sequenceSource, tableSource } from '../src/operations/sources.js';
import { adapterStoredKeys } from 'hilo-core/adapter-kit';

type Database = 'postgres' | 'mysql' | 'sqlite';

const WORKER = fileURLToPath(new URL('./workers/verified-worker.ts', import.meta.url));

/** Runs the verified worker in a process of its own; resolves with its exit code and output. */
function runWorker(spec: Record<string, unknown>): Promise<{ code: number | null; output: string }> {
  const mapping = workerMapping();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...mapping.args, '--no-warnings', WORKER, JSON.stringify(spec)],
    { cwd: process.cwd(), env: { ...process.env, ...mapping.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}
type Kind = 'sequence' | 'table';

/** One way the store falls behind: what it does to the store, given the segment. */
interface Fault {
  readonly name: string;
  readonly kinds: readonly Kind[];
  /** Whether `create: true` brings the store back above the rows by itself (the store was missing). */
  readonly recreated: boolean;
  breakStore(
    client: SqlClient,
    segment: string,
    table: string,
    quote: (name: string) => string,
    earlier: unknown,
  ): Promise<void>;
  /** Only on these databases (a dump tool that speaks to the server). */
  readonly databases?: readonly Database[];
  /** Runs after the first 5 of 25 keys were stored; what it returns reaches `breakStore` (an older copy). */
  snapshot?(url: string, segment: string, kind: Kind): unknown;
}

/** The MariaDB command-line tools' connection arguments for a `mysql://user@host:port/db` URL. */
function mariadbArgs(url: string): string[] {
  const u = new URL(url);
  return [
    '-h',
    u.hostname,
    '-P',
    u.port || '3306',
    '-u',
    decodeURIComponent(u.username || 'root'),
    ...(u.password ? [`-p${decodeURIComponent(u.password)}`] : []),
    u.pathname.slice(1),
  ];
}

const FAULTS: readonly Fault[] = [
  {
    name: 'sequence dropped (create: true creates it again)',
    kinds: ['sequence'],
    recreated: true,
    breakStore: async (client, segment, _table, q) =>
      void (await client.query(`drop sequence ${q(`${segment}_hilo_seq`)}`)),
  },
  {
    name: 'ALTER SEQUENCE … RESTART',
    kinds: ['sequence'],
    recreated: false,
    breakStore: async (client, segment, _table, q) =>
      void (await client.query(`alter sequence ${q(`${segment}_hilo_seq`)} restart`)),
  },
  {
    name: 'hi row deleted (create: true inserts it again)',
    kinds: ['table'],
    recreated: true,
    breakStore: async (client, segment) =>
      void (await client.query(`delete from hilo_segments where segment = '${segment}'`)),
  },
  {
    name: 'hi row set back',
    kinds: ['table'],
    recreated: false,
    breakStore: async (client, segment) =>
      void (await client.query(`update hilo_segments set next_value = 1 where segment = '${segment}'`)),
  },
  {
    // the store alone comes back from a backup taken 20 keys ago, as `mariadb-dump`/`mysql` write and read it
    name: 'the store restored from an older mysqldump',
    kinds: ['sequence', 'table'],
    databases: ['mysql'],
    recreated: false,
    snapshot: (url, segment, kind) => ({
      url,
      dump: execFileSync(
        'mysqldump',
        [...mariadbArgs(url), kind === 'sequence' ? `${segment}_hilo_seq` : 'hilo_segments'],
        { encoding: 'utf8' },
      ),
    }),
    breakStore: async (_client, segment, _table, _quote, earlier) => {
      const { url, dump } = earlier as { url: string; dump: string };
      expect(dump).toContain(segment);
      execFileSync('mysql', mariadbArgs(url), { input: dump });
    },
  },
  {
    name: 'rows copied in without the store (a switchover by logical replication)',
    kinds: ['sequence', 'table'],
    recreated: false,
    breakStore: async (client, _segment, table) => {
      const values = Array.from({ length: 200 }, (_, i) => `(${1000 + i})`).join(', ');
      await client.query(`insert into ${table} (id) values ${values}`);
    },
  },
];

/** Runs the verified-blocks suite on one database, for each source kind it has. */
export function runVerifiedBlocksSuite(database: Database): void {
  const kinds: Kind[] = database === 'sqlite' ? ['table'] : ['sequence', 'table'];
  const title = `${database}: verified blocks`;
  const body = (url: () => string) => {
    let client: SqlClient;
    const quote = (name: string) => (database === 'mysql' ? `\`${name}\`` : `"${name}"`);
    beforeAll(async () => {
      client = await connect(url());
    });
    afterAll(async () => {
      await client.close();
    });

    /** A fresh segment and its key table. */
    async function fresh(): Promise<{ segment: string; table: string }> {
      const segment = randomName('s');
      const table = `${segment}_rows`;
      await client.query(`create table ${table} (id bigint primary key)`);
      return { segment, table };
    }

    function generator(
      kind: Kind,
      segment: string,
      table: string,
      more: { onStoreBehind?: 'error' | 'lift'; onEvent?: (event: HiLoEvent) => void; blockSize?: number } = {},
    ): HiLoGenerator<bigint> {
      return createHiLo({
        client,
        source: kind,
        keyType: 'bigint',
        blockSize: more.blockSize ?? 10,
        adaptive: false,
        prefetchAt: false,
        retryBudgetMs: 0,
        storedKeys: [{ segment, table, column: 'id' }],
        ...(more.onStoreBehind === undefined ? {} : { onStoreBehind: more.onStoreBehind }),
        ...(more.onEvent === undefined ? {} : { onEvent: more.onEvent }),
      });
    }

    async function insertKeys(hilo: HiLoGenerator<bigint>, segment: string, table: string, n: number) {
      const keys: bigint[] = [];
      for (let i = 0; i < n; i++) {
        const key = await hilo.next(segment);
        await client.query(`insert into ${table} (id) values (${key})`);
        keys.push(key);
      }
      return keys;
    }

    async function largest(table: string): Promise<bigint> {
      const { rows } = await client.query<{ m: unknown }>(
        `select cast(max(id) as ${database === 'postgres' ? 'text' : 'char'}) as m from ${table}`,
      );
      return BigInt(String(rows[0]!.m));
    }

    for (const kind of kinds) {
      const faults = FAULTS.filter((f) => f.kinds.includes(kind) && (f.databases ?? [database]).includes(database));
      for (const fault of faults) {
        it(`${kind}: ${fault.name}: a new generator never hands out a stored key`, async () => {
          const { segment, table } = await fresh();
          const first = generator(kind, segment, table);
          await insertKeys(first, segment, table, 5);
          const earlier = fault.snapshot?.(url(), segment, kind);
          await insertKeys(first, segment, table, 20);
          await first.close();
          await fault.breakStore(client, segment, table, quote, earlier);
          const max = await largest(table);

          if (fault.recreated) {
            const again = generator(kind, segment, table);
            const keys = await insertKeys(again, segment, table, 5);
            await again.close();
            expect(keys[0]!).toBeGreaterThan(max);
            return;
          }

          // refused, with where, what and the fix
          const refusing = generator(kind, segment, table);
          const error = await refusing.next(segment).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(HiLoStoreBehindError);
          const behind = error as HiLoStoreBehindError;
          expect(behind.code).toBe('HILO_STORE_BEHIND');
          expect(behind.retryable).toBe(false);
          // the refusal names the table with its schema (database) where the connection has one (issue 53)
          const named = new RegExp(`^(\\w+\\.)?${table}$`);
          expect(behind).toMatchObject({ segment, table: expect.stringMatching(named), column: 'id', storedKey: max });
          expect(behind.block.first).toBeLessThanOrEqual(max);
          expect(behind.hint?.cli).toMatch(
            new RegExp(`hilo floor --url <URL> --source ${kind} ${segment} --from (\\w+\\.)?${table}\\.id`),
          );
          expect(behind.message).toContain(`onStoreBehind: 'lift'`);
          expect(refusing.tryNextSync(segment)).toBeUndefined();
          expect(refusing.stats()[segment]!.keysIssued).toBe(0);
          await refusing.close();

          // lifted on purpose: keys above the rows, an event, a warning
          const events: HiLoEvent[] = [];
          const warned: unknown[][] = [];
          const emitWarning = process.emitWarning;
          process.emitWarning = (...args: unknown[]) => void warned.push(args);
          try {
            const lifting = generator(kind, segment, table, {
              onStoreBehind: 'lift',
              onEvent: (event) => events.push(event),
            });
            const keys = await insertKeys(lifting, segment, table, 15);
            await lifting.close();
            expect(keys[0]!).toBeGreaterThan(max);
            const lifted = events.filter((e) => e.type === 'floor-lifted');
            expect(lifted).toEqual([
              expect.objectContaining({ segment, table: expect.stringMatching(named), column: 'id', storedKey: max }),
            ]);
            expect(events).toContainEqual(expect.objectContaining({ type: 'lost', reason: 'store-behind' }));
            const warnings = warned.filter(([, options]) => JSON.stringify(options).includes('HILO_FLOOR_LIFTED'));
            expect(warnings).toHaveLength(1);
            expect(String(warnings[0]![0])).toMatch(new RegExp(`"${segment}".*${table}\\.id.*above ${max}`));
          } finally {
            process.emitWarning = emitWarning;
          }

          // never backwards: lifting below the store does nothing, and the next key is still above every row
          const source = kind === 'sequence' ? sequenceSource(client, { increment: 10 }) : tableSource(client);
          expect(await source.raiseAbove!(segment, 1n)).toBe(false);
          const after = generator(kind, segment, table);
          const [next] = await insertKeys(after, segment, table, 1);
          await after.close();
          expect(next!).toBeGreaterThan(max + 15n);
        });
      }

      it(`${kind}: a key table that does not exist yet counts as empty, and says so once (a typo would disable the check)`, async () => {
        const segment = randomName('s');
        const warnings: unknown[][] = [];
        const emitWarning = process.emitWarning;
        process.emitWarning = (...args: unknown[]) => void warnings.push(args);
        try {
          const hilo = generator(kind, segment, `${segment}_not_created`, { blockSize: 2 });
          expect(await hilo.reserve(segment, 6)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
          await hilo.close();
          // the adapters' tables come from the ORM's metadata: a table not created yet is no typo there
          const quiet = adapterStoredKeys(
            client,
            {},
            [{ segment, table: `${segment}_not_created`, column: 'id' }],
            'test',
          );
          expect(await quiet!.largest(segment, new AbortController().signal)).toBeUndefined();
        } finally {
          process.emitWarning = emitWarning;
        }
        const missing = warnings.filter(
          ([, options]) => (options as { code?: string })?.code === 'HILO_STORED_KEYS_MISSING',
        );
        expect(missing).toHaveLength(1);
        expect(String(missing[0]![0])).toMatch(
          new RegExp(
            // with its schema (database) where the connection has one (issue 53)
            `storedKeys\\[0\\] names (\\w+\\.)?${segment}_not_created\\.id, ` +
              `and (\\w+\\.)?${segment}_not_created does not exist.*"${segment}"`,
          ),
        );
      });

      it(`${kind}: a block that overlaps a stored key in the middle (sparse rows of a peer) is caught by within`, async () => {
        const { segment, table } = await fresh();
        const hilo = generator(kind, segment, table);
        const keys = await insertKeys(hilo, segment, table, 10);
        // a peer set up differently stores a key two blocks ahead
        const foreign = keys[keys.length - 1]! + 15n;
        await client.query(`insert into ${table} (id) values (${foreign})`);
        const handed: bigint[] = [];
        const error = await (async () => {
          for (;;) handed.push(await hilo.next(segment));
        })().then(
          () => undefined,
          (e: unknown) => e,
        );
        await hilo.close();
        expect(error).toBeInstanceOf(HiLoStoreBehindError);
        expect(error).toMatchObject({
          segment,
          table: expect.stringMatching(new RegExp(`^(\\w+\\.)?${table}$`)),
          storedKey: foreign,
        });
        expect(handed).not.toContain(foreign);
        expect(handed.every((key) => key < foreign)).toBe(true);
      });

      it(`${kind}: no false alarm from generators reserving and storing concurrently`, async () => {
        const { segment, table } = await fresh();
        const all: bigint[] = [];
        const worker = async (delayMs: number) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          // a new generator (a process starting) while the others write: its start check reads the rows first
          const hilo = generator(kind, segment, table, { blockSize: 3 });
          try {
            all.push(...(await insertKeys(hilo, segment, table, 40)));
          } finally {
            await hilo.close();
          }
        };
        await Promise.all([0, 0, 0, 5, 20, 50].map(worker));
        expect(new Set(all).size).toBe(all.length);
        expect(all).toHaveLength(240);
      });

      if (database !== 'sqlite') {
        it(`${kind}: no false alarm from 4 processes reserving and storing concurrently, one started 300 ms after the others`, async () => {
          const { segment, table } = await fresh();
          const spec = { url: url(), source: kind, segment, table, keys: 300, blockSize: 5 };
          const early = [0, 1, 2].map(() => runWorker(spec));
          await new Promise((resolve) => setTimeout(resolve, 300));
          const late = runWorker(spec);
          const results = await Promise.all([...early, late]);
          for (const result of results) expect(result).toEqual({ code: 0, output: 'done\n' });
          const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${table}`);
          expect(Number(rows[0]!.n)).toBe(1200);
        }, 60_000);
      }
    }
  };

  if (database === 'sqlite') {
    describe(title, () => {
      const folder = mkdtempSync(join(tmpdir(), 'hilo-verified-'));
      afterAll(() => rmSync(folder, { recursive: true, force: true }));
      body(() => `sqlite:${join(folder, 'keys.db')}`);
    });
  } else {
    describeDatabase(database, title, (db) => body(() => db.url));
  }
}
