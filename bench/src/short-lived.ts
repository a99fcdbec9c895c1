// Short-lived processes (issue 54, DESIGN rule 12): keys consumed per key used over 200 process starts that draw 3
// keys each and end without close(), 4 at a time, with default settings. Each start is a real Node.js process on
// hilo-core's build, so the figure includes what happens at exit (the table source's tail goes back then).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, createHiLo } from 'hilo-core';
import { createPostgresDatabase } from '@hilo/testing';
import type { Result } from './measure.js';

const STARTS = 200;
const KEYS_PER_START = 3;
const AT_ONCE = 4;
const worker = fileURLToPath(new URL('./short-lived-worker.mjs', import.meta.url));

function start(url: string, source: 'table' | 'sequence'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, url, source, String(KEYS_PER_START)], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a short-lived process failed (${code})`))));
  });
}

/** Keys the store has given out for segment `starts`: the first key a new generator gets, less one. */
async function consumed(url: string, source: 'table' | 'sequence'): Promise<number> {
  const client = await connect(url);
  const hilo = createHiLo({ client, source });
  try {
    return (await hilo.next('starts')) - 1;
  } finally {
    await hilo.close();
    await client.close();
  }
}

async function keysPerKeyUsed(source: 'table' | 'sequence'): Promise<number> {
  const db = await createPostgresDatabase();
  try {
    let next = 0;
    const lane = async () => {
      while (next < STARTS) {
        next++;
        await start(db.url, source);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, lane));
    return (await consumed(db.url, source)) / (STARTS * KEYS_PER_START);
  } finally {
    await db.drop();
  }
}

/** Keys consumed per key used, for the table source (target ≤ 2) and the sequence source (PostgreSQL's default). */
export async function shortLivedBenchmarks(): Promise<Result[]> {
  const note = `${STARTS} processes × ${KEYS_PER_START} keys, ${AT_ONCE} at a time, no close(), default settings`;
  return [
    // lower is better, so no `target` (the chart reads a target as a ratio to reach): the is ≤ 2
    {
      name: 'shortlived.table',
      value: await keysPerKeyUsed('table'),
      unit: 'keys consumed per key used',
      note: `${note}; target ≤ 2`,
    },
    {
      name: 'shortlived.sequence',
      value: await keysPerKeyUsed('sequence'),
      unit: 'keys consumed per key used',
      note: `${note}; a sequence block is its INCREMENT BY (100) and cannot be returned`,
    },
  ];
}
