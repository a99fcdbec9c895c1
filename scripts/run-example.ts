// Runs one example app's run(url) and prints its summary as JSON on the last stdout line. The demo starts
// it in a child process per example so that each example compiles with its own tsconfig (TypeORM needs
// legacy decorators, other examples may not).
const [name, url] = process.argv.slice(2);
if (!name || !url) {
  console.error('usage: run-example.ts NAME URL');
  process.exit(2);
}
const { run } = (await import(`../examples/${name}/src/main.ts`)) as {
  run: (url: string, log?: (line: string) => void) => Promise<Record<string, unknown>>;
};
const summary = await run(url, (line) => console.log(`  ${line}`));
console.log(JSON.stringify(summary));
