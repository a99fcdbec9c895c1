// One column, one segment, across processes and deploys (issue 52, DESIGN rule 13). Measured before: two processes
// with segments `a` and `b` on one table (a rolling deploy that renamed the segment) shared keys, 100 of 200 saves
// failing on duplicate keys, and nothing refused. Now a segment's first reservation records its columns in
// `hilo_columns`, a process whose segment claims a column recorded for another is refused before it hands out a key,
// and `moveColumn` (`hilo move`) moves a column to the new segment above both stores.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeDatabase, randomName, workerMapping } from '@hilo/testing';
import { HiLoMismatchError, connect, createHiLo, moveColumn, segmentStatus, type SqlClient } from 'hilo-core';
import { sequenceSource, tableSource } from '../src/operations/sources.js';

type Database = 'postgres' | 'mysql' | 'sqlite';
type Kind = 'sequence' | 'table';

const WORKER = fileURLToPath(new URL('./workers/column-worker.ts', import.meta.url));

/** What a worker process reported: `done`, or its error's code, claim and message. */
interface WorkerResult {
  readonly code: number | null;
  readonly done: boolean;
  readonly error?: { code: string | null; claim: Record<string, string> | null; message: string };
  readonly output: string;
}

/** Runs the column worker (one deploy's process) in a process of its own. */
function runWorker(spec: Record<string, unknown>): Promise<WorkerResult> {
  const mapping = workerMapping();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...mapping.args, '--no-warnings', WORKER, JSON.stringify(spec)],
    { cwd: process.cwd(), env: { ...process.env, ...mapping.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      const line = output.split('\n').find((l) => l.startsWith('error '));
      resolve({
        code,
        done: output.split('\n').includes('done'),
        ...(line === undefined ? {} : { error: JSON.parse(line.slice('error '.length)) as WorkerResult['error'] }),
        output,
      });
    }),
  );
}

export function runColumnRegistrySuite(database: Database): void {
  const title = `${database}: the store records the column each segment keys (issue 52)`;
  const kinds: Kind[] = database === 'sqlite' ? ['table'] : ['sequence', 'table'];

  const body = (url: () => string) => {
    let client: SqlClient;
    beforeAll(async () => {
      client = await connect(url(), { poolSize: 2 });
    });
    afterAll(async () => {
      await client.close();
    });

    /** The column as the store records it: schema-qualified where the database has schemas. */
    const recorded = async (table: string) => {
      if (database === 'sqlite') return `${table}.id`;
      const expression = database === 'postgres' ? 'current_schema()' : 'database()';
      const { rows } = await client.query<{ s: string }>(`select ${expression} as s`);
      return `${rows[0]!.s}.${table}.id`;
    };
    const newTable = async () => {
      const table = randomName('col_t');
      await client.query(`create table ${table} (id bigint primary key)`);
      return table;
    };
    const count = async (table: string) => {
      const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${table}`);
      return Number(rows[0]!.n);
    };
    /** The registry's rows; none while it does not exist (a store of an older hilo). */
    const registry = async () => {
      const { rows } = await client
        .query<{ c: string; s: string; m: string | null }>(
          'select column_ref as c, segment as s, moving_from as m from hilo_columns order by column_ref',
        )
        .catch(() => ({ rows: [] }));
      return rows;
    };

    for (const source of kinds) {
      describe(`${source} source`, () => {
        it('refuses a second process whose segment claims a column another segment keys, before any key of it', async () => {
          const table = await newTable();
          const [a, b] = [randomName('a'), randomName('b')];
          const spec = { url: url(), source, table, keys: 50, blockSize: 20 };
          const first = await runWorker({ ...spec, segment: a });
          expect(first.output).toContain('done');
          const column = await recorded(table);
          expect(await registry()).toContainEqual({ c: column, s: a, m: null });

          const second = await runWorker({ ...spec, segment: b });
          expect(second.code).toBe(1);
          expect(second.error?.code).toBe('HILO_MISMATCH');
          expect(second.error?.claim).toEqual({ column, keyedBy: a, claimedBy: b });
          expect(second.error?.message).toContain(`hilo move --url URL ${column} --to ${b}`);
          // refused before its first key: the table holds the first process's keys only
          expect(await count(table)).toBe(50);
        }, 60_000);

        it('lets exactly one of two processes starting at once key the column, and the other none', async () => {
          const table = await newTable();
          const [a, b] = [randomName('a'), randomName('b')];
          const spec = { url: url(), source, table, keys: 100, blockSize: 10 };
          const results = await Promise.all([a, b].map((segment) => runWorker({ ...spec, segment })));
          const won = results.filter((r) => r.done);
          const lost = results.filter((r) => !r.done);
          expect(won).toHaveLength(1);
          expect(lost).toHaveLength(1);
          expect(lost[0]!.error?.code).toBe('HILO_MISMATCH');
          expect(lost[0]!.error?.claim?.['column']).toBe(await recorded(table));
          expect(await count(table)).toBe(100);
        }, 60_000);

        it('records a store made before columns were recorded at its next reservation, and keeps it working', async () => {
          const table = await newTable();
          const [a, b] = [randomName('a'), randomName('b')];
          // an older hilo: no registry at all, the store reserved without anything recorded, keys stored
          await client.query('drop table if exists hilo_columns');
          const old = source === 'sequence' ? sequenceSource(client, { increment: 10 }) : tableSource(client);
          const [block] = await old.reserve(a, { size: 10, signal: new AbortController().signal });
          for (let key = block!.first; key <= block!.last; key++)
            await client.query(`insert into ${table} (id) values (${key})`);
          const column = await recorded(table);
          expect((await registry()).find((r) => r.c === column)).toBeUndefined();

          const upgraded = createHiLo({
            client,
            source,
            blockSize: 10,
            keyType: 'bigint',
            storedKeys: [{ segment: a, table, column: 'id' }],
          });
          try {
            const key = await upgraded.next(a);
            expect(key).toBeGreaterThan(block!.last);
            await client.query(`insert into ${table} (id) values (${key})`);
          } finally {
            await upgraded.close();
          }
          expect(await registry()).toContainEqual({ c: column, s: a, m: null });
          const status = await segmentStatus(client);
          expect(status.find((s) => s.segment === a && s.source === source)?.columns).toEqual([column]);

          const renamed = createHiLo({ client, source, storedKeys: [{ segment: b, table, column: 'id' }] });
          try {
            await expect(renamed.next(b)).rejects.toThrow(HiLoMismatchError);
            await expect(renamed.next(b)).rejects.toMatchObject({ claim: { column, keyedBy: a, claimedBy: b } });
          } finally {
            await renamed.close();
          }
        }, 60_000);

        it('moves a column to the renamed segment above both stores: no key twice, the old deploy refused', async () => {
          const table = await newTable();
          const [a, b] = [randomName('a'), randomName('b')];
          const spec = { url: url(), source, table, blockSize: 20 };
          expect((await runWorker({ ...spec, segment: a, keys: 30 })).output).toContain('done');
          // a process of the old deploy still running, with keys in hand
          const running = createHiLo({
            client,
            source,
            blockSize: 20,
            keyType: 'bigint',
            storedKeys: [{ segment: a, table, column: 'id' }],
          });
          try {
            await client.query(`insert into ${table} (id) values (${await running.next(a)})`);

            const result = await moveColumn(client, { table, column: 'id', to: b, source });
            expect(result).toMatchObject({ column: await recorded(table), from: a, to: b, moved: true });
            expect(await registry()).toContainEqual({ c: result.column, s: b, m: null });

            // the new deploy stores its keys; the old process's keys in hand lie below them
            const renamed = await runWorker({ ...spec, segment: b, keys: 100 });
            expect(renamed.output).toContain('done');
            // it hands out what it holds (each insert would fail on a key stored twice), then its next block would
            // count into b's column: refused, naming the move
            let refusal: unknown;
            for (let i = 0; i < 200 && refusal === undefined; i++) {
              const key = await running.next(a).catch((error: unknown) => (refusal = error));
              if (refusal === undefined) await client.query(`insert into ${table} (id) values (${String(key)})`);
            }
            expect(refusal).toMatchObject({
              code: 'HILO_MISMATCH',
              claim: { column: result.column, keyedBy: b, claimedBy: a },
            });
          } finally {
            await running.close();
          }
          expect(await count(table)).toBeGreaterThanOrEqual(131);
          // a second move to the same segment changes nothing
          expect(await moveColumn(client, { table, column: 'id', to: b, source })).toMatchObject({ moved: false });
          const old = await runWorker({ ...spec, segment: a, keys: 1 });
          expect(old.error?.claim).toMatchObject({ keyedBy: b, claimedBy: a });
        }, 90_000);
      });
    }

    it('records nothing for a segment without known columns, and refuses nothing', async () => {
      const plain = createHiLo({ client, source: kinds[0]! });
      const segment = randomName('plain');
      try {
        expect(await plain.next(segment)).toBeGreaterThan(0);
      } finally {
        await plain.close();
      }
      expect((await registry()).filter((r) => r.s === segment)).toEqual([]);
    });
  };

  if (database === 'sqlite') {
    describe(title, () => {
      const folder = mkdtempSync(join(tmpdir(), 'hilo-columns-'));
      afterAll(() => rmSync(folder, { recursive: true, force: true }));
      body(() => `sqlite:${join(folder, 'keys.db')}`);
    });
  } else {
    describeDatabase(database, title, (db) => body(() => db.url));
  }
}
