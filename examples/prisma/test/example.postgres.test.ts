import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describePostgres } from '@hilo/testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// The root build covers packages/*; the example's client is generated here when it is missing.
function ensureGeneratedClient(): void {
  if (existsSync(join(root, 'src', 'generated', 'prisma', 'hilo.ts'))) return;
  execFileSync(
    process.execPath,
    [join(root, '..', '..', 'packages', 'prisma', 'scripts', 'generate.mjs'), 'prisma/schema.prisma'],
    {
      cwd: root,
      stdio: 'pipe',
    },
  );
}

describePostgres('example: prisma shop', (db) => {
  it('should know every key before persisting and store the graph in fewer statements than nested create', async () => {
    ensureGeneratedClient();
    const { run } = await import('../src/main.js');
    const lines: string[] = [];
    const result = await run(db.url, (line) => lines.push(line));
    expect(result.keysBeforeFlush).toBe(1 + 10 + 50);
    // two createMany (plus the transaction's BEGIN/COMMIT if the driver logs them)
    expect(result.statements).toBeLessThanOrEqual(4);
    expect(result.identityStatements).toBeGreaterThanOrEqual(3 * 10);
    expect(lines.join('\n')).toMatch(/rolled back; its key is not reused/);
  });

  it('should run twice on the same database', async () => {
    ensureGeneratedClient();
    const { run } = await import('../src/main.js');
    await expect(run(db.url, () => undefined)).resolves.toMatchObject({ keysBeforeFlush: 61 });
  });

  it('should run the README example, which is quick-start.ts verbatim', async () => {
    const readme = readFileSync(join(root, '..', '..', 'packages', 'prisma', 'README.md'), 'utf8');
    const source = readFileSync(join(root, 'src', 'quick-start.ts'), 'utf8');
    expect(readme).toContain('```ts\n' + source + '```');
    ensureGeneratedClient();
    const { quickStart } = await import('../src/quick-start.js');
    const keys = await quickStart(db.url);
    expect(keys).toHaveLength(13);
    for (const key of keys) expect(typeof key).toBe('bigint');
  });

  // Timings depend on the machine; the statement counts are what the benchmark's speed-up comes from.
  it('should store 100 orders × 10 items in a handful of statements, against five per order with nested create', async () => {
    ensureGeneratedClient();
    const { benchGraph, benchJson, benchText } = await import('../src/bench.js');
    const result = await benchGraph(db.url, { orders: 100, items: 10, rounds: 2 });
    expect(result.hiloStatements).toBeLessThanOrEqual(4);
    expect(result.identityStatements).toBeGreaterThanOrEqual(300);
    // the UUIDv7 side stores the same graph with the same two createMany calls
    expect(result.uuidv7Statements).toBe(result.hiloStatements);
    expect(result).toMatchObject({ orders: 100, itemsPerOrder: 10, rounds: 2 });
    // one time per round and side, which `pnpm bench` pairs round by round (the identity side in min(rounds, 3))
    expect(result.perRound.hilo).toHaveLength(2);
    expect(result.perRound.uuidv7).toHaveLength(2);
    expect(result.perRound.identity).toHaveLength(2);
    const times = [
      result.hiloMs,
      result.identityMs,
      result.uuidv7Ms,
      ...Object.values(result.firstRound),
      ...Object.values(result.perRound).flat(),
    ];
    for (const ms of times) expect(ms).toBeGreaterThan(0);

    // `--bench --json`: one line with exactly the fields `pnpm bench` records
    const json = benchJson(result);
    expect(json).not.toContain('\n');
    expect(Object.keys(JSON.parse(json))).toEqual([
      'orders',
      'itemsPerOrder',
      'hiloMs',
      'identityMs',
      'uuidv7Ms',
      'hiloStatements',
      'identityStatements',
      'uuidv7Statements',
    ]);
    expect(JSON.parse(json)).toMatchObject({ orders: 100, itemsPerOrder: 10, hiloStatements: result.hiloStatements });
    expect(benchText(result)).toMatch(/median of 2 rounds[\s\S]*speed-up: [0-9.]+×/);
  });

  it('should print exactly one JSON line on stdout for `cli.ts URL --bench --json`', () => {
    ensureGeneratedClient();
    const stdout = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'src', 'cli.ts'), db.url, '--bench', '--json', '--orders', '20', '--rounds', '1'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
    const lines = stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(result)).toEqual([
      'orders',
      'itemsPerOrder',
      'hiloMs',
      'identityMs',
      'uuidv7Ms',
      'hiloStatements',
      'identityStatements',
      'uuidv7Statements',
    ]);
    expect(result).toMatchObject({ orders: 20, itemsPerOrder: 10, identityStatements: 100 });
    expect(result['hiloStatements']).toBeLessThanOrEqual(4);
  }, 60_000);
});
