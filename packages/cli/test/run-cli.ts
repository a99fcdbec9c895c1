import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The built `hilo` command these tests run. */
export const BIN = join(root, 'packages/cli/dist/bin.js');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(pkg: string, output: string): boolean {
  const built = join(root, 'packages', pkg, 'dist', output);
  return !existsSync(built) || statSync(built).mtimeMs < newest(join(root, 'packages', pkg, 'src'));
}

/**
 * Builds hilo-core and hilo-cli unless their dist is newer than their sources (`pnpm test` has just built
 * them). A lock directory keeps two Jest workers from running tsc over the same files at once.
 */
export async function ensureBuilt(): Promise<void> {
  const lock = join(tmpdir(), 'hilo-cli-test-build.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // a lock left behind by a killed run is taken over after two minutes
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000 || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const [pkg, output] of [
      ['core', 'index.js'],
      ['cli', 'bin.js'],
    ] as const) {
      if (!stale(pkg, output)) continue;
      try {
        execFileSync(process.execPath, [tsc, '-p', join(root, 'packages', pkg, 'tsconfig.build.json')], { stdio: 'pipe' });
      } catch (error) {
        const out = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
        throw new Error(`Building packages/${pkg} for the CLI tests failed; run \`pnpm build\` to see why.\n${out.slice(0, 2000)}`);
      }
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing after the build; run \`pnpm build\`.`);
}

/** What one run of the command did. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs the built `hilo` with `args` as a subprocess; never rejects on a non-zero exit. */
export function hilo(args: readonly string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    // HILO_URL from the developer's shell must not stand in for a --url a test leaves out
    const env = { ...process.env, ...options.env };
    if (options.env?.['HILO_URL'] === undefined) delete env['HILO_URL'];
    const child = spawn(process.execPath, [BIN, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(), ms: Date.now() - started });
    });
  });
}

/** The keys a `hilo next` run printed, checked to be one integer per line. */
export function keysOf(run: CliRun): bigint[] {
  if (run.code !== 0) throw new Error(`hilo next exited ${run.code}: ${run.stderr}`);
  const lines = run.stdout.split('\n');
  if (lines.pop() !== '') throw new Error('hilo next output does not end with a newline');
  return lines.map((line) => {
    if (!/^[1-9][0-9]*$/.test(line)) throw new Error(`hilo next printed a line that is not a key: ${JSON.stringify(line)}`);
    return BigInt(line);
  });
}

/** Whether every key is larger than the one before. */
export function isIncreasing(keys: readonly bigint[]): boolean {
  return keys.every((key, i) => i === 0 || key > keys[i - 1]!);
}

/** Asserts that a run succeeded; on failure the message shows what the command printed on stderr. */
export function expectSuccess(run: CliRun): void {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
}
