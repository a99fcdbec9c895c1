import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describePostgres } from '@hilo/testing';

const example = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'nestjs');

// examples/nestjs is tested the way a `nest new` project tests itself: its own `test:e2e` script, Jest with ts-jest
// compiling to CommonJS and test/jest-e2e.json, not this ESM/SWC Jest. Here on the workspace's Nest 12 and TypeORM
// 1.x (both ESM-only or dual, loaded through require(esm) under --experimental-vm-modules); from the packed packages
// on Nest 11 and TypeORM 0.3 in scripts/test/nest-app.postgres.test.ts. Run on a database of the test server.
describePostgres('examples/nestjs: its own `npm run test:e2e` (ts-jest, CommonJS), Nest 12', (db) => {
  it('passes against the test database', async () => {
    const child = spawn('npm', ['run', 'test:e2e', '--', '--ci'], {
      cwd: example,
      env: { ...process.env, DATABASE_URL: db.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    expect(out).toMatch(/PASS test\/typeorm\.e2e-spec\.ts/);
    expect(out).toMatch(/PASS test\/mikro-orm\.e2e-spec\.ts/);
    expect(out).toMatch(/Tests:\s+4 passed, 4 total/);
  }, 120_000);
});
