import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describePostgres } from '@hilo/testing';

const example = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples', 'nestjs');

// examples/nestjs is tested the way a Nest project tests itself: its own Jest run with ts-jest compiling to
// CommonJS (jest.config.ts there), not this ESM/SWC Jest. Run it on a database of the test server.
describePostgres('examples/nestjs: Nest’s own Jest run (ts-jest, CommonJS)', (db) => {
  it('passes against the test database', async () => {
    const child = spawn(
      process.execPath,
      [
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
        join(example, '..', '..', 'node_modules', 'jest', 'bin', 'jest.js'),
        '--config',
        'jest.config.ts',
        '--ci',
      ],
      { cwd: example, env: { ...process.env, DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    expect(out).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 120_000);
});
