// `pnpm bench`: measures hilo side by side with what users would do instead, in one run, and writes
// results/latest.json, results/latest.md and results/latest.svg.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memorySource } from 'hilo-core';
import { boundaryLatency, coreBenchmarks } from './core.js';
import type { Result } from './measure.js';
import { renderMarkdown, renderSvg } from './report.js';

const results: Result[] = [];
const log = (r: Result[]) => {
  for (const x of r) process.stderr.write(`bench: ${x.name} = ${x.value.toPrecision(4)} ${x.unit}${x.ratio === undefined ? '' : ` (ratio ${x.ratio.toFixed(2)})`}\n`);
  results.push(...r);
};

log(await coreBenchmarks());
log(await boundaryLatency(() => memorySource({ latencyMs: 2 }), 'memory2ms'));

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ results }, null, 2)}\n`);
writeFileSync(join(dir, 'latest.md'), renderMarkdown(results));
writeFileSync(join(dir, 'latest.svg'), renderSvg(results));
process.stderr.write(`bench: wrote ${join(dir, 'latest.json')}\n`);
