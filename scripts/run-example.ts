// Runs one example app in this process and prints its summary as JSON on the last stdout line. The demo and
// the benchmarks start it in a child process per example so that each example compiles with its own tsconfig
// (TypeORM needs legacy decorators, other examples may not).
//   run-example.ts NAME URL            the example's run(url): what `pnpm demo` shows
//   run-example.ts NAME URL --bench    the example's benchGraph(url, 1,000 orders × 10 items): `pnpm bench`
const [name, url, mode] = process.argv.slice(2);
if (!name || !url || (mode !== undefined && mode !== '--bench')) {
  console.error('usage: run-example.ts NAME URL [--bench]');
  process.exit(2);
}
if (mode === '--bench') {
  const { benchGraph } = (await import(`../examples/${name}/src/bench.ts`)) as {
    benchGraph: (url: string, size: { orders: number; items: number }) => Promise<Record<string, unknown>>;
  };
  console.log(JSON.stringify(await benchGraph(url, { orders: 1000, items: 10 })));
} else {
  const { run } = (await import(`../examples/${name}/src/main.ts`)) as {
    run: (url: string, log?: (line: string) => void) => Promise<Record<string, unknown>>;
  };
  const summary = await run(url, (line) => console.log(`  ${line}`));
  console.log(JSON.stringify(summary));
}
