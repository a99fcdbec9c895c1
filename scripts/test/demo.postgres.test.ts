import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describePostgres } from '@hilo/testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// `pnpm demo` is what a new user runs first: run it end to end (the example apps, each in its own process,
// on databases of the test server) and check the summary it prints.
describePostgres('pnpm demo', () => {
  it('runs the examples and prints keys known before flush and statements per ORM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'demo.ts')], {
      cwd: root,
      env: process.env, // HILO_PG_URL: the demo uses this server instead of starting one
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('| typeorm | 24 | 5 | 5 |');
    expect(out).toContain('| prisma | 61 | 4 | 50 |');
    expect(out).toContain('| mikro-orm | 184 | 5 | 5 |');
    expect(out).toContain('| drizzle | 24 | 5 | 5 |');
    expect(out).toContain('| kysely | 24 | 5 | 5 |');
    expect(out).toContain('| nestjs | 7 | — | — |');
    expect(out).toMatch(/transaction rolled back \(payment declined\)/);
    // the root README says how many apps the demo runs and shows the summary it prints: both as the run has them
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const shown = /^The demo runs the (\w+) example apps[\s\S]*?^```text\n([\s\S]*?)^```$/m.exec(readme);
    expect(shown).not.toBeNull();
    const apps = [...out.matchAll(/^=== (\S+) ===$/gm)].map((m) => m[1]);
    expect(apps).toEqual(['typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely', 'nestjs']);
    expect(shown![1]).toBe(['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'][apps.length - 1]);
    const summary = (text: string) => text.split('\n').filter((line) => line.startsWith('| '));
    expect(summary(shown![2]!)).toEqual(summary(out));
  }, 120_000);
});
