import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Block, HiSource, SqlClient } from 'hilo-core';
import { describeDatabase, randomName, type TestDatabase } from '../databases.ts';
import { freePort } from '../embedded-postgres.ts';
import { workerMapping } from '../worker-mapping.ts';

/** The SQL hi source under test: a HiSource with floor support (core's `SqlHiSource`). */
export interface ConformanceSource extends HiSource {
  prepare(segment: string, signal?: AbortSignal): Promise<void>;
  raiseFloor(
    segment: string,
    from: { table: string; column?: string },
  ): Promise<{ raised: boolean; maxKey: bigint | undefined }>;
}

/** How the suite builds a source. */
export interface SourceSettings {
  /** Block size: INCREMENT BY of sequences; a reservation size for tables. */
  readonly increment: number;
  /** When set, use this hostile string as the table name (table sources) or the sequence name (sequences). */
  readonly hostileName?: string;
}

/** Options of {@link runHiSourceConformance}. */
export interface HiSourceConformanceOptions {
  /** Title of the describe block, e.g. `postgres sequence`. */
  readonly name: string;
  /** Which database the source needs. */
  readonly kind: 'postgres' | 'mysql' | 'sqlite';
  /** Opens a client of its own on `url` (core's `connect`). */
  readonly connect: (url: string, options?: { poolSize?: number; connectTimeoutMs?: number }) => Promise<SqlClient>;
  /** Builds the source under test. */
  readonly makeSource: (client: SqlClient, settings: SourceSettings) => ConformanceSource;
  /**
   * A child-process script (run with `node --import tsx`) that reserves through the same source; it gets
   * `{ ...worker.spec, url, segment, keys, blockSize, pauseMs? }` as JSON in argv[2] and prints `first-last`
   * lines, then `done` (see packages/core/test/workers/reserve-worker.ts).
   */
  readonly worker: { readonly script: string; readonly spec: Record<string, unknown> };
  /** The source returns unused keys by compare-and-set (table sources). */
  readonly releases: boolean;
  /** The database stores the increment (sequences): a mismatch must be refused. */
  readonly checksIncrement: boolean;
}

const BLOCK = 100;
const PROCESSES = 6;
const KEYS_PER_PROCESS = 20_000;
const signal = () => new AbortController().signal;

type Range = readonly [bigint, bigint];

function parseRanges(text: string): Range[] {
  return text
    .split('\n')
    .filter((line) => /^\d+-\d+$/.test(line))
    .map((line) => {
      const [a, b] = line.split('-');
      return [BigInt(a!), BigInt(b!)] as const;
    });
}

/** Throws when two ranges share a key. */
function expectDisjoint(ranges: readonly Range[]): void {
  const sorted = [...ranges].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const current = sorted[i]!;
    if (current[0] <= previous[1])
      throw new Error(`duplicate keys: ${previous[0]}-${previous[1]} overlaps ${current[0]}-${current[1]}`);
  }
}

const toRanges = (blocks: readonly Block[]): Range[] => blocks.map((b) => [b.first, b.last] as const);
const count = (ranges: readonly Range[]) => ranges.reduce((n, r) => n + (r[1] - r[0] + 1n), 0n);
const maxOf = (ranges: readonly Range[]) => ranges.reduce((m, r) => (r[1] > m ? r[1] : m), 0n);
const minOf = (ranges: readonly Range[]) => ranges.reduce((m, r) => (r[0] < m ? r[0] : m), ranges[0]![0]);

function expectAscending(ranges: readonly Range[]): void {
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i]![0] <= ranges[i - 1]![1])
      throw new Error(`keys not increasing: ${ranges[i]![0]} after ${ranges[i - 1]![1]}`);
  }
}

function startWorker(
  options: HiSourceConformanceOptions,
  spec: Record<string, unknown>,
): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const mapping = workerMapping();
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      ...mapping.args,
      '--no-warnings',
      options.worker.script,
      JSON.stringify({ ...options.worker.spec, ...spec }),
    ],
    {
      cwd: process.cwd(),
      env: { ...process.env, ...mapping.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': a worker's last lines may still be in the pipe when it exits (a clean-clone CI run once
  // read an output without its final 'done' from a worker that exited 0)
  const exit = new Promise<number | null>((resolve) =>
    child.on('close', (code, signal) => {
      // a signal the test did not send (a crash in a native driver, the OOM killer) is a failure worth a line too
      if (code !== 0 && !(code === null && signal === 'SIGKILL'))
        process.stderr.write(`worker failed (${code ?? signal}): ${stderr}\n`);
      resolve(code);
    }),
  );
  return { child, output: () => stdout, exit };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the worker');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Fresh database for the sqlite kind: a file in a temporary folder. */
function describeSqlite(title: string, body: (db: TestDatabase) => void): void {
  const handle = { kind: 'sqlite', url: '', name: '' };
  let dir = '';
  describe(title, () => {
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'hilo-sqlite-'));
      handle.name = randomName();
      handle.url = `sqlite:${join(dir, `${handle.name}.db`)}`;
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    body(handle as unknown as TestDatabase);
  });
}

async function unreachableUrl(kind: HiSourceConformanceOptions['kind']): Promise<string> {
  const port = await freePort();
  if (kind === 'postgres') return `postgres://postgres@127.0.0.1:${port}/hilo_nowhere`;
  if (kind === 'mysql') return `mysql://root@127.0.0.1:${port}/hilo_nowhere`;
  return `sqlite:${join(tmpdir(), randomName('hilo_missing_dir'), 'nowhere.db')}`;
}

/** Kills every other connection to the test database, as an administrator would. */
async function killConnections(admin: SqlClient): Promise<number> {
  if (admin.dialect === 'postgres') {
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rows.length;
  }
  const { rows } = await admin.query<{ id: number | string }>(
    'select id from information_schema.processlist where db = database() and id <> connection_id()',
  );
  for (const row of rows) await admin.query(`kill ${Number(row.id)}`).catch(() => undefined);
  return rows.length;
}

/**
 * The hi-source conformance suite: run it once per source × database. Proves uniqueness across 6 OS
 * processes, exact reservations under 64 concurrent callers, isolation from a rolled-back caller
 * transaction, typed errors for an unreachable database, recovery from killed connections and workers,
 * floor and release semantics, refused increment mismatches and harmless hostile names.
 *
 * @example
 * ```ts
 * runHiSourceConformance({ name: 'postgres table', kind: 'postgres', connect, makeSource: (c) => tableSource(c), … });
 * ```
 */
export function runHiSourceConformance(options: HiSourceConformanceOptions): void {
  const body = (db: TestDatabase) => {
    let client: SqlClient;
    let source: ConformanceSource;
    const q = (name: string) => (options.kind === 'mysql' ? `\`${name}\`` : `"${name}"`);

    beforeAll(async () => {
      client = await options.connect(db.url);
      source = options.makeSource(client, { increment: BLOCK });
    });
    afterAll(async () => {
      await client?.close();
    });

    it('should reserve disjoint, increasing blocks of at least the requested size', async () => {
      const segment = randomName('seg');
      const seen: Range[] = [];
      for (const size of [BLOCK, 1, 3 * BLOCK, BLOCK + 1]) {
        const blocks = await source.reserve(segment, { size, signal: signal() });
        const ranges = toRanges(blocks);
        expect(count(ranges)).toBeGreaterThanOrEqual(BigInt(size));
        expectAscending(ranges);
        if (seen.length > 0) expect(minOf(ranges)).toBeGreaterThan(maxOf(seen));
        seen.push(...ranges);
      }
      expect(minOf(seen)).toBeGreaterThan(0n);
    });

    it(`should hand out no key twice across ${PROCESSES} processes × ${KEYS_PER_PROCESS} keys, increasing within each`, async () => {
      const segment = randomName('seg');
      await source.prepare(segment);
      const workers = Array.from({ length: PROCESSES }, () =>
        startWorker(options, { url: db.url, segment, keys: KEYS_PER_PROCESS, blockSize: BLOCK }),
      );
      const codes = await Promise.all(workers.map((w) => w.exit));
      expect(codes).toEqual(Array.from({ length: PROCESSES }, () => 0));
      const all: Range[] = [];
      for (const worker of workers) {
        const output = worker.output();
        expect(output.trimEnd().endsWith('done')).toBe(true);
        const ranges = parseRanges(output);
        expectAscending(ranges);
        expect(count(ranges)).toBe(BigInt(KEYS_PER_PROCESS));
        all.push(...ranges);
      }
      expectDisjoint(all);
      expect(count(all)).toBe(BigInt(PROCESSES * KEYS_PER_PROCESS));
    });

    it('should make exactly one reservation per call under 64 concurrent callers', async () => {
      const segment = randomName('seg');
      await source.prepare(segment);
      const first = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      const results = await Promise.all(
        Array.from({ length: 64 }, () => source.reserve(segment, { size: BLOCK, signal: signal() })),
      );
      const ranges = results.flatMap(toRanges);
      expectDisjoint(ranges);
      expect(count(ranges)).toBe(BigInt(64 * BLOCK));
      // nothing lost, nothing doubled: the 64 blocks tile the key space right after the first block…
      expect(minOf(ranges)).toBe(maxOf(first) + 1n);
      expect(maxOf(ranges)).toBe(maxOf(first) + BigInt(64 * BLOCK));
      // …and the database is exactly 64 blocks further on
      const next = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      expect(minOf(next)).toBe(maxOf(ranges) + 1n);
    });

    it('should make nothing reusable when the caller rolls back a transaction that used keys', async () => {
      const segment = randomName('seg');
      const appTable = randomName('app');
      await client.query(`create table ${q(appTable)} (id bigint primary key)`);
      const app = await options.connect(db.url, { poolSize: 2 });
      let used: Range[] = [];
      try {
        const insertUsed = async (run: (sql: string) => Promise<unknown>, blocks: readonly Block[]) => {
          used = toRanges(blocks);
          await run(`insert into ${q(appTable)} (id) values (${used[0]![0]}), (${used[0]![0] + 1n})`);
        };
        if (options.kind === 'sqlite') {
          // SQLite allows one writer: the app's transaction must not hold the write lock while hilo reserves
          await app.query('begin');
          await insertUsed((sql) => app.query(sql), await source.reserve(segment, { size: BLOCK, signal: signal() }));
          await app.query('rollback');
        } else {
          await expect(
            app.transaction(async (tx) => {
              await tx.query(`insert into ${q(appTable)} (id) values (0)`);
              await insertUsed(
                (sql) => tx.query(sql),
                await source.reserve(segment, { size: BLOCK, signal: signal() }),
              );
              throw new Error('business rule failed: roll back');
            }),
          ).rejects.toThrow('roll back');
        }
      } finally {
        await app.close();
      }
      const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${q(appTable)}`);
      expect(Number(rows[0]!.n)).toBe(0);
      const again = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      expect(minOf(again)).toBeGreaterThan(maxOf(used));
    });

    it('should fail fast with HiLoSourceUnavailableError when the database is unreachable', async () => {
      const url = await unreachableUrl(options.kind);
      let failure: unknown;
      let unreachable: SqlClient | undefined;
      try {
        unreachable = await options.connect(url, { connectTimeoutMs: 2000 });
        await options
          .makeSource(unreachable, { increment: BLOCK })
          .reserve(randomName('seg'), { size: BLOCK, signal: signal() });
      } catch (error) {
        failure = error;
      } finally {
        await unreachable?.close().catch(() => undefined);
      }
      expect(failure).toMatchObject({
        name: 'HiLoSourceUnavailableError',
        code: 'HILO_SOURCE_UNAVAILABLE',
        retryable: true,
      });
      // fast by what it does (one attempt, connectTimeoutMs), not measured in ms: the test's timeout is the hang
      // detector (issue #52)
    });

    if (options.kind !== 'sqlite') {
      it('should keep reserving after its connections are killed, handing out nothing twice', async () => {
        const segment = randomName('seg');
        const before = (
          await Promise.all(Array.from({ length: 4 }, () => source.reserve(segment, { size: BLOCK, signal: signal() })))
        ).flatMap(toRanges);
        const admin = await options.connect(db.url, { poolSize: 1 });
        try {
          expect(await killConnections(admin)).toBeGreaterThan(0);
        } finally {
          await admin.close();
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
        const after = (
          await Promise.all(Array.from({ length: 4 }, () => source.reserve(segment, { size: BLOCK, signal: signal() })))
        ).flatMap(toRanges);
        expectDisjoint([...before, ...after]);
        expect(minOf(after)).toBeGreaterThan(maxOf(before));
      });
    }

    it('should leave a gap and no duplicate when a worker is killed with SIGKILL', async () => {
      const segment = randomName('seg');
      await source.prepare(segment);
      const worker = startWorker(options, { url: db.url, segment, keys: 1e9, blockSize: BLOCK, pauseMs: 5 });
      await waitFor(() => parseRanges(worker.output()).length >= 10, 20_000);
      worker.child.kill('SIGKILL');
      await worker.exit;
      const handedOut = parseRanges(worker.output());
      expectAscending(handedOut);
      const next = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      expectDisjoint([...handedOut, ...next]);
      expect(minOf(next)).toBeGreaterThan(maxOf(handedOut));
    });

    it('should raise the floor above existing keys and never move it backwards', async () => {
      const segment = randomName('seg');
      const table = randomName('rows');
      await client.query(`create table ${q(table)} (id bigint primary key)`);
      await client.query(`insert into ${q(table)} (id) values (5000), (12345)`);
      const early = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      const raised = await source.raiseFloor(segment, { table, column: 'id' });
      expect(raised).toMatchObject({ raised: true, maxKey: 12345n });
      const above = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      expect(minOf(above)).toBeGreaterThan(12345n);
      expect(minOf(above)).toBeGreaterThan(maxOf(early));
      await client.query(`delete from ${q(table)} where id = 12345`);
      const lower = await source.raiseFloor(segment, { table, column: 'id' });
      expect(lower).toMatchObject({ raised: false, maxKey: 5000n });
      const later = toRanges(await source.reserve(segment, { size: BLOCK, signal: signal() }));
      expect(minOf(later)).toBeGreaterThan(maxOf(above));
    });

    if (options.releases) {
      it('should take back unused keys only when nobody reserved after (range: 1–32, then 2–33)', async () => {
        const segment = randomName('seg');
        const [block] = await source.reserve(segment, { size: 32, signal: signal() });
        const start = block!.first;
        expect(block!.last).toBe(start + 31n);
        // one key used, the rest returned: the next reservation starts right after the used key
        expect(await source.release!(segment, { first: start + 1n, last: block!.last })).toBe(true);
        const [next] = await source.reserve(segment, { size: 32, signal: signal() });
        expect(next).toEqual({ first: start + 1n, last: start + 32n });
        const [later] = await source.reserve(segment, { size: 32, signal: signal() });
        // `next` is no longer the last reservation: giving its tail back must be refused
        expect(await source.release!(segment, { first: next!.first + 1n, last: next!.last })).toBe(false);
        const [after] = await source.reserve(segment, { size: 1, signal: signal() });
        expect(after!.first).toBe(later!.last + 1n);
      });
    } else {
      it('should not offer to take back keys (a sequence cannot prove nobody reserved after)', () => {
        expect(source.release).toBeUndefined();
      });
    }

    if (options.checksIncrement) {
      it('should reserve in units of the real INCREMENT BY when the configured one differs (issue #15)', async () => {
        const segment = randomName('seg');
        const [mine] = await source.reserve(segment, { size: BLOCK, signal: signal() });
        const other = await options.connect(db.url, { poolSize: 1 });
        try {
          const mismatched = options.makeSource(other, { increment: BLOCK * 2 });
          const blocks = await mismatched.reserve(segment, { size: 1, signal: signal() });
          // one value, read with the sequence's own increment: a block of BLOCK keys after ours, not BLOCK * 2
          expect(blocks).toHaveLength(1);
          expect(blocks[0]!.first).toBeGreaterThan(mine!.last);
          expect(blocks[0]!.last - blocks[0]!.first + 1n).toBe(BigInt(BLOCK));
        } finally {
          await other.close();
        }
      });
    }

    it('should reject hostile names or keep them harmless', async () => {
      const sentinel = randomName('sentinel');
      await client.query(`create table ${q(sentinel)} (id bigint)`);
      const hostile = [
        `x"; drop table ${sentinel}; --`,
        `x\`; drop table ${sentinel}; --`,
        `x'; drop table ${sentinel}; --`,
        'x\\',
      ];
      for (const name of hostile) {
        try {
          const bad = options.makeSource(client, { increment: BLOCK, hostileName: name });
          await bad.reserve(randomName('seg'), { size: 1, signal: signal() });
          throw new Error(`hostile name ${JSON.stringify(name)} was accepted`);
        } catch (error) {
          expect(error).toMatchObject({ code: 'HILO_CONFIGURATION' });
        }
        // as a segment: stored as a parameter (tables) or refused (sequence names derive from it)
        try {
          const blocks = await source.reserve(name, { size: 1, signal: signal() });
          expect(count(toRanges(blocks))).toBeGreaterThanOrEqual(1n);
        } catch (error) {
          expect(error).toMatchObject({ code: 'HILO_CONFIGURATION' });
        }
      }
      const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${q(sentinel)}`);
      expect(Number(rows[0]!.n)).toBe(0);
    });
  };

  const title = `hi source conformance: ${options.name}`;
  if (options.kind === 'sqlite') describeSqlite(title, body);
  else describeDatabase(options.kind, title, body);
}
