import { benchGraph } from './bench.js';
import { run } from './main.js';

// `node dist/cli.js [postgres://…]` runs the example; add `--bench` for 1,000 orders × 10 items.
const url = process.argv.find((a) => /^postgres(ql)?:\/\//.test(a)) ?? process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('usage: node dist/cli.js postgres://user@host:5432/db [--bench]  (or set DATABASE_URL)\n');
  process.exit(2);
}
if (process.argv.includes('--bench')) {
  const r = await benchGraph(url, { orders: 1000, items: 10 });
  console.log(`hilo + two createMany: ${r.hiloMs.toFixed(0)} ms, ${r.hiloStatements} statements`);
  console.log(`nested create + autoincrement: ${r.identityMs.toFixed(0)} ms, ${r.identityStatements} statements`);
  console.log(`speed-up: ${r.speedup.toFixed(1)}×`);
} else {
  console.log(await run(url));
}
