import { spawn, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const packages = join(root, 'packages');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function stale(pkg: string, output: string): boolean {
  const built = join(packages, pkg, 'dist', output);
  return !existsSync(built) || statSync(built).mtimeMs < newest(join(packages, pkg, 'src'));
}

async function withLock<T>(work: () => T): Promise<T> {
  const lock = join(tmpdir(), 'hilo-cli-test-build.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // a lock left behind by a killed run is taken over after two minutes
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

let snapshot: string | undefined;

/** The built `hilo` these tests run: a private copy made by {@link ensureBuilt}. */
export function bin(): string {
  if (snapshot === undefined) throw new Error('Call `beforeAll(ensureBuilt)` before running hilo.');
  return join(snapshot, 'node_modules/hilo-cli/dist/bin.js');
}

/**
 * Builds hilo-core and hilo-cli unless their dist is newer than their sources (`pnpm test` has just built
 * them), then copies both into a private `node_modules` in a temporary folder. The copy is what the tests
 * run: a `pnpm build` started elsewhere while they run (the monorepo shares one dist) cannot hand a
 * subprocess half-written files. A lock keeps Jest workers from building the same files at once.
 */
export async function ensureBuilt(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hilo-cli-bin-'));
  snapshot = dir;
  await withLock(() => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const [pkg, output] of [
      ['core', 'index.js'],
      ['cli', 'bin.js'],
    ] as const) {
      if (!stale(pkg, output)) continue;
      try {
        execFileSync(process.execPath, [tsc, '-p', join(packages, pkg, 'tsconfig.build.json')], { stdio: 'pipe' });
      } catch (error) {
        const out = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
        throw new Error(
          `Building packages/${pkg} for the CLI tests failed; run \`pnpm build\` to see why.\n${out.slice(0, 2000)}`,
          {
            cause: error,
          },
        );
      }
    }
    for (const [pkg, name] of [
      ['core', 'hilo-core'],
      ['cli', 'hilo-cli'],
    ] as const) {
      if (!existsSync(join(packages, pkg, 'dist')))
        throw new Error(`packages/${pkg}/dist is missing; run \`pnpm build\`.`);
      cpSync(join(packages, pkg, 'dist'), join(dir, 'node_modules', name, 'dist'), { recursive: true });
      cpSync(join(packages, pkg, 'package.json'), join(dir, 'node_modules', name, 'package.json'));
    }
  });
  // the packages the copies import, linked where the workspace has them installed
  for (const [name, optional] of [
    ['commander', false],
    ['pg', false],
    ['mysql2', false],
    // optional: without it hilo falls back to node:sqlite
    ['better-sqlite3', true],
  ] as const) {
    const installed = [join(packages, 'cli', 'node_modules', name), join(root, 'node_modules', name)].find((path) =>
      existsSync(path),
    );
    if (installed === undefined) {
      if (optional) continue;
      throw new Error(`${name} is not installed; run \`./pnpm install\`.`);
    }
    symlinkSync(realpathSync(installed), join(dir, 'node_modules', name), 'dir');
  }
}

/** Removes the private copy made by {@link ensureBuilt}. */
export function removeBuilt(): void {
  if (snapshot !== undefined) rmSync(snapshot, { recursive: true, force: true });
  snapshot = undefined;
}

/** What one run of the command did. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs the built `hilo` with `args` as a subprocess; never rejects on a non-zero exit. */
export function hilo(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    // HILO_URL from the developer's shell must not stand in for a --url a test leaves out
    const env = { ...process.env, ...options.env };
    if (options.env?.['HILO_URL'] === undefined) delete env['HILO_URL'];
    // a suite starts a few hundred of these: Node's compile cache (checked against the source), kept in the
    // private copy, spares each after the first compiling hilo-core, commander and the drivers again
    env['NODE_COMPILE_CACHE'] ??= join(snapshot!, 'compile-cache');
    const child = spawn(process.execPath, [bin(), ...args], {
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
      resolvePromise({
        code,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        ms: Date.now() - started,
      });
    });
  });
}

/** The keys a `hilo next` run printed, checked to be one integer per line. */
export function keysOf(run: CliRun): bigint[] {
  if (run.code !== 0) throw new Error(`hilo next exited ${run.code}: ${run.stderr}`);
  const lines = run.stdout.split('\n');
  if (lines.pop() !== '') throw new Error('hilo next output does not end with a newline');
  return lines.map((line) => {
    if (!/^[1-9][0-9]*$/.test(line))
      throw new Error(`hilo next printed a line that is not a key: ${JSON.stringify(line)}`);
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
