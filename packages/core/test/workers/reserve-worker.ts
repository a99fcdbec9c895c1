/**
 * Child process of the hi-source conformance suite: reserves keys through a SQL hi source in a tight loop,
 * hands them out in order with a tiny generator of its own, and prints every range it handed out as
 * `first-last` lines (compact: one line per block), then `done`.
 *
 * argv[2] is JSON: { url, source: 'sequence' | 'table', options, segment, keys, blockSize, pauseMs?, driver? }
 * (`driver`: `'postgres.js'` through postgresJsClient(), or `'mariadb'` through mariadbClient(), instead of
 * connect()'s `pg` or `mysql2`).
 * Run with `node --import tsx reserve-worker.ts '<json>'`; it imports core's sources, no build needed.
 */
import { HiLoError } from '../../src/errors.js';
import { connect } from '../../src/operations/connect.js';
import { sequenceSource, tableSource } from '../../src/operations/sources.js';
import { connectMariadb } from '../mariadb-support.js';
import { connectPostgresJs } from '../postgres-js-support.js';
import { installedVersion } from './installed-version.js';

interface WorkerSpec {
  url: string;
  source: 'sequence' | 'table';
  options: Record<string, unknown>;
  segment: string;
  keys: number;
  blockSize: number;
  pauseMs?: number;
  driver?: 'postgres.js' | 'mariadb';
}

// Under a compatibility Jest project the worker's drivers are mapped by module hooks: prove each one took.
for (const [name, version] of Object.entries(
  JSON.parse(process.env.HILO_WORKER_PACKAGES ?? '{}') as Record<string, string>,
)) {
  const loaded = installedVersion(name, import.meta.resolve(name));
  if (loaded !== version) throw new Error(`the worker loaded ${name} ${loaded}, expected ${version}`);
}

const spec = JSON.parse(process.argv[2] ?? '{}') as WorkerSpec;
const opener =
  spec.driver === undefined ? connect : { 'postgres.js': connectPostgresJs, mariadb: connectMariadb }[spec.driver];
const client = await opener(spec.url, { poolSize: 2 });
const source =
  spec.source === 'sequence'
    ? sequenceSource(client, spec.options as unknown as Parameters<typeof sequenceSource>[1])
    : tableSource(client, spec.options);
const signal = new AbortController().signal;

/**
 * One reservation, tried again after a retryable error as a generator would (its outcome is discarded, so no key of
 * a failed attempt is printed): six processes on one SQLite file on a loaded machine can wait past the busy timeout.
 */
async function reserveRetrying(size: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await source.reserve(spec.segment, { size, signal });
    } catch (error) {
      if (!(error instanceof HiLoError && error.retryable) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

let handedOut = 0;
let previous = -1n;
let round = 0;
const out: string[] = [];
const flush = () => {
  if (out.length > 0) process.stdout.write(`${out.join('\n')}\n`);
  out.length = 0;
};
while (handedOut < spec.keys) {
  // alternate sizes so sequence sources also fetch several increments in one round trip
  const size = spec.blockSize * ((round++ % 3) + 1);
  const blocks = await reserveRetrying(size);
  for (const block of blocks) {
    if (block.first <= previous) throw new Error(`keys went backwards: ${block.first} after ${previous}`);
    const take = BigInt(Math.min(spec.keys - handedOut, Number(block.last - block.first + 1n)));
    if (take <= 0n) break;
    // the tiny generator: keys first … first + take - 1 are handed out, in order
    const last = block.first + take - 1n;
    out.push(`${block.first}-${last}`);
    handedOut += Number(take);
    previous = last;
  }
  if (spec.pauseMs !== undefined) {
    flush();
    await new Promise((resolve) => setTimeout(resolve, spec.pauseMs));
  }
}
out.push('done');
flush();
await client.close();
