// DESIGN rule 12 on a real database: processes that live for a few keys (a cron job, a serverless function, a
// script) exit by themselves without close(), and with the table source the unused tail of their small first
// block goes back at exit, so that the next process starts where the last one stopped.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { workerMapping } from '@hilo/testing';

const worker = fileURLToPath(new URL('./workers/short-lived-worker.ts', import.meta.url));
/** Only detects a hang (a run takes seconds, and up to two minutes at load 55 on 2 cores); never a measure of speed. */
const HANG_MS = 240_000;

/** Runs the worker to its end; rejects when it fails or has not exited by itself within {@link HANG_MS}. */
function run(url: string, source: 'table' | 'sequence', count: number): Promise<number[]> {
  const mapping = workerMapping();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...mapping.args, '--no-warnings', worker, url, source, String(count)],
    {
      env: { ...process.env, ...mapping.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (hung) {
        const printed = stdout === '' ? 'it printed nothing yet' : `it printed ${stdout.trim()} and did not end`;
        return reject(new Error(`the worker did not exit by itself within ${HANG_MS} ms; ${printed}`));
      }
      if (code !== 0) return reject(new Error(`the worker failed (${code ?? signal}): ${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as number[]);
    });
  });
}

/** The short-lived-process tests against the database at `db.url`. */
export function shortLivedSuite(db: { readonly url: string }): void {
  it(
    'table source: each process exits without close(), and the next one starts right after its last key',
    async () => {
      const runs: number[][] = [];
      for (let i = 0; i < 3; i++) runs.push(await run(db.url, 'table', 3));
      // the first block is 4 keys; the one left over went back when the process ran out of work
      expect(runs).toEqual([
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ]);
    },
    4 * HANG_MS,
  );

  it(
    'sequence source: each process exits without close(); its block is the sequence increment, never reused',
    async () => {
      const runs: number[][] = [];
      for (let i = 0; i < 2; i++) runs.push(await run(db.url, 'sequence', 3));
      const all = runs.flat();
      expect(new Set(all).size).toBe(6);
      // a sequence cannot take a tail back (nothing can prove nobody called nextval since): the rest stays a gap
      expect(runs[1]![0]).toBeGreaterThan(runs[0]![2]!);
    },
    3 * HANG_MS,
  );
}
