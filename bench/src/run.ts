// `pnpm bench`: measures hilo side by side with what users would do instead, in one run, and writes
// results/latest.json, results/latest.md and results/latest.svg.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memorySource, pgClient, sequenceSource } from 'hilo-core';
import pg from 'pg';
import { createPostgresDatabase, startEmbeddedPostgres } from '@hilo/testing';
import { pgBenchmarks } from './pg.js';
import { bulkBenchmarks } from './bulk.js';
import { copyBenchmarks } from './copy.js';
import { probeBenchmarks } from './probe.js';
import { tenantBenchmarks } from './tenants.js';
import { boundaryLatency, coreBenchmarks } from './core.js';
import { latencyBenchmarks, ormBenchmarks } from './orm.js';
import { shortLivedBenchmarks } from './short-lived.js';
import type { Result } from './measure.js';
import { renderMarkdown, renderSvg, renderTable } from './report.js';
import { formatRatio, formatSpread } from './spread.js';

/**
 * The phases to run: all of them by default; `pnpm bench orm latency` (any of these names) runs only those,
 * prints their figures and leaves the committed results alone, since a partial run is not one run of all.
 */
const PHASES = ['core', 'pg', 'probe', 'tenants', 'bulk', 'copy', 'orm', 'latency', 'shortlived'] as const;
const asked = process.argv.slice(2).filter((arg) => arg !== '--');
const unknown = asked.filter((name) => !(PHASES as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown phase ${unknown.join(', ')}; the phases are ${PHASES.join(', ')}\n`);
  process.exit(2);
}
const runs = (phase: (typeof PHASES)[number]) => asked.length === 0 || asked.includes(phase);

const started = performance.now();
const results: Result[] = [];
const log = (r: Result[]) => {
  for (const x of r)
    process.stderr.write(
      `bench: ${x.name} = ${x.value.toPrecision(4)} ${x.unit}` +
        `${x.ratio === undefined ? '' : ` (ratio ${formatRatio(x.ratio)}${x.spread ? `; ${formatSpread(x.spread)}` : ''})`}\n`,
    );
  results.push(...r);
};

// the pg phase compares with core.next, so it measures it when the core phase does not run
const core = runs('core') || runs('pg') ? await coreBenchmarks() : [];
if (runs('core')) {
  log(core);
  log(await boundaryLatency(() => memorySource({ latencyMs: 2 }), 'memory2ms'));
}

const embedded = process.env.HILO_PG_URL ? undefined : await startEmbeddedPostgres();
const url = process.env.HILO_PG_URL ?? embedded!.url;
try {
  if (runs('pg')) {
    log(await pgBenchmarks(url, core.find((r) => r.name === 'core.next')!.value));
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const client = pgClient(pool);
    // a sequence of its own, INCREMENT BY the block size of the latency run
    log(
      await boundaryLatency(
        (size) => sequenceSource(client, { increment: size, name: (segment) => `${segment}_boundary_seq` }),
        'pg',
      ),
    );
    await pool.end();
  }
  if (runs('probe')) log(await probeBenchmarks(url));
  process.env.HILO_PG_URL = url; // the bulk and ORM benchmarks create their databases on this server
  if (runs('tenants')) {
    const tenantsDb = await createPostgresDatabase();
    try {
      log(await tenantBenchmarks(tenantsDb.url));
    } finally {
      await tenantsDb.drop();
    }
  }
  if (runs('bulk')) {
    const bulkDb = await createPostgresDatabase();
    try {
      log(await bulkBenchmarks(bulkDb.url));
    } finally {
      await bulkDb.drop();
    }
  }
  if (runs('copy')) {
    const copyDb = await createPostgresDatabase();
    try {
      log(await copyBenchmarks(copyDb.url));
    } finally {
      await copyDb.drop();
    }
  }
  if (runs('orm')) log(await ormBenchmarks());
  if (runs('latency')) log(await latencyBenchmarks());
  if (runs('shortlived')) log(await shortLivedBenchmarks());
} finally {
  await embedded?.stop();
}

process.stderr.write(`\n${renderTable(results)}\nbench: took ${Math.round((performance.now() - started) / 1000)} s\n`);

if (asked.length > 0) {
  process.stderr.write(`bench: ran ${asked.join(', ')} only; bench/results keeps the last full run\n`);
  process.exit(0);
}

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ results }, null, 2)}\n`);
writeFileSync(join(dir, 'latest.md'), renderMarkdown(results));
writeFileSync(join(dir, 'latest.svg'), renderSvg(results));
process.stderr.write(`bench: wrote ${join(dir, 'latest.json')}\n`);
