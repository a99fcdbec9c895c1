import { benchGraph, benchJson, benchText } from './bench.js';
import { run } from './main.js';

// `node dist/cli.js [postgres://…]` runs the example; `--bench` times 1,000 orders × 10 items both ways
// (`--orders N`, `--rounds N` to change that), `--json` prints the result as one JSON line.
const USAGE =
  'usage: node dist/cli.js postgres://user@host:5432/db [--bench [--json] [--orders N] [--rounds N]]  (or set DATABASE_URL)\n';
const args = process.argv.slice(2);
const url = args.find((a) => /^postgres(ql)?:\/\//.test(a)) ?? process.env.DATABASE_URL;

function count(flag: string, fallback: number): number {
  const at = args.indexOf(flag);
  if (at < 0) return fallback;
  const value = args[at + 1] ?? '';
  if (!/^[1-9][0-9]{0,6}$/.test(value)) {
    process.stderr.write(`${flag} needs a positive integer, got ${JSON.stringify(value)}\n${USAGE}`);
    process.exit(2);
  }
  return Number(value);
}

if (!url) {
  process.stderr.write(USAGE);
  process.exit(2);
}
if (args.includes('--bench')) {
  const result = await benchGraph(url, { orders: count('--orders', 1000), items: 10, rounds: count('--rounds', 3) });
  process.stdout.write(`${args.includes('--json') ? benchJson(result) : benchText(result)}\n`);
} else {
  console.log(await run(url));
}
