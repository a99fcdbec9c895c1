// Runs one example app in this process and prints its summary as JSON on the last stdout line. The demo and
// the benchmarks start it in a child process per example so that each example compiles with its own tsconfig
// (TypeORM needs legacy decorators, other examples may not).
//   run-example.ts NAME URL            the example's run(url): what `pnpm demo` shows
//   run-example.ts NAME URL --bench    the example's benchGraph(url, 1,000 orders × 10 items): `pnpm bench`
//   run-example.ts NAME URL --bench ORDERS ITEMS ROUNDS    another size (the latency benchmarks)
const [name, url, mode, ...size] = process.argv.slice(2);
const [orders = 1000, items = 10, rounds] = size.map(Number); // rounds: each example's own default unless given
if (
  !name ||
  !url ||
  (mode !== undefined && mode !== '--bench') ||
  ![orders, items, rounds ?? 1].every((n) => Number.isInteger(n) && n > 0)
) {
  console.error('usage: run-example.ts NAME URL [--bench [ORDERS ITEMS ROUNDS]]');
  process.exit(2);
}
if (mode === '--bench') {
  const { benchGraph } = (await import(`../examples/${name}/src/bench.ts`)) as {
    benchGraph: (
      url: string,
      size: { orders: number; items: number; rounds?: number },
    ) => Promise<Record<string, unknown>>;
  };
  console.log(JSON.stringify(await benchGraph(url, { orders, items, ...(rounds === undefined ? {} : { rounds }) })));
} else {
  const { run } = (await import(`../examples/${name}/src/main.ts`)) as {
    run: (url: string, log?: (line: string) => void) => Promise<Record<string, unknown>>;
  };
  const summary = await run(url, (line) => console.log(`  ${line}`));
  console.log(JSON.stringify(summary));
}
