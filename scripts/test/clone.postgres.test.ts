import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Set in the clone's environment so that a suite run there never clones again. */
const INSIDE_CLONE = 'HILO_INSIDE_CLONE_TEST';

/** Runs a command in the clone; resolves with its exit code and output. */
function run(
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

// Issue #15: a clone where the `postgres` OS user cannot enter (root's mode-700 home, the default on servers and
// in containers) runs both README commands with the embedded PostgreSQL. The clone is of the committed HEAD of
// this checkout; its install is offline from the pnpm store (hard links) and it reuses this checkout's
// `.tools` (Node.js fetched by ./pnpm) through a symlink, so nothing is downloaded.
(process.env[INSIDE_CLONE] ? describe.skip : describe)('a clone in a mode-700 folder', () => {
  let parent: string;
  let clone: string;
  beforeAll(() => {
    // root's home when it is ours (the case of the issue), else a mode-700 temporary folder
    const base = process.getuid?.() === 0 && existsSync(homedir()) ? homedir() : tmpdir();
    parent = mkdtempSync(join(base, 'hilo-clone-'));
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    execFileSync('chmod', ['700', parent]);
    clone = join(parent, 'hilo');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root }).toString().trim();
    execFileSync('git', ['clone', '--quiet', '--no-checkout', root, clone]);
    execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', head], { cwd: clone });
    if (existsSync(join(root, '.tools'))) symlinkSync(join(root, '.tools'), join(clone, '.tools'));
  });
  afterAll(() => {
    if (parent) rmSync(parent, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => {
    // the embedded PostgreSQL is what is under test: no database of the parent run
    const { HILO_PG_URL: _pg, HILO_MYSQL_URL: _mysql, ...rest } = process.env;
    return { ...rest, [INSIDE_CLONE]: '1', CI: 'true', npm_config_prefer_offline: 'true' };
  };

  it('runs ./pnpm demo with the embedded PostgreSQL', async () => {
    const demo = await run(clone, './pnpm', ['demo'], env());
    expect({ code: demo.code, err: demo.code === 0 ? '' : demo.err.slice(-2000) }).toEqual({ code: 0, err: '' });
    expect(demo.out).toContain('| typeorm | 24 | 5 | 5 |');
  }, 600_000);

  it('runs ./pnpm test with the embedded PostgreSQL', async () => {
    const test = await run(clone, './pnpm', ['test', 'packages/core/test/sql-sources.postgres.test.ts'], env());
    const output = test.out + test.err;
    expect({ code: test.code, output: test.code === 0 ? '' : output.slice(-2000) }).toEqual({ code: 0, output: '' });
    // every test ran and passed: none skipped for want of a database
    expect(output).toMatch(/Tests:\s+(\d+) passed, \1 total/);
  }, 600_000);
});
