// What the end-to-end files that install hilo from packed tarballs share (pack-install, npm-peers, nest-app,
// better-sqlite3-12): packing the published packages, a concurrency limit, and fetching another Node.js.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The folders under packages/ of the packages published to npm. */
export const published = ['core', 'typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely', 'cli'] as const;

/** A queue that runs at most `limit` of the tasks given to it at once, in the order given. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // a finishing task hands its place over
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * Packs the packages of `folders` (default: every published one) with `pnpm pack`, which rewrites `workspace:*`
 * to versions as a publish does, into `destination`; resolves package name → tarball. Needs the built dist/
 * (`./pnpm test` builds first) and pnpm on PATH (./pnpm runs the suite).
 */
export async function packPublished(
  destination: string,
  folders: readonly string[] = published,
): Promise<Record<string, string>> {
  mkdirSync(destination, { recursive: true });
  await Promise.all(
    folders.map((dir) =>
      run('pnpm', ['pack', '--pack-destination', destination], { cwd: join(root, 'packages', dir) }),
    ),
  );
  const tarballs: Record<string, string> = {};
  for (const file of readdirSync(destination))
    tarballs[file.replace(/-\d+\.\d+\.\d+.*\.tgz$/, '')] = join(destination, file);
  return tarballs;
}

/**
 * Fetches Node.js `version` for this machine from the npm registry into `dir`, as ./pnpm fetches Node 24 (npm's cache
 * keeps the tarball); resolves the `node` binary. The folder has the headers too (`include/node`), so native
 * addons compile against it offline with `npm_config_nodedir=dir`.
 */
export async function fetchNode(version: string, dir: string): Promise<string> {
  mkdirSync(dir);
  const { stdout } = await run(
    'npm',
    ['pack', '--silent', `node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}@${version}`],
    { cwd: dir },
  );
  await run('tar', ['xzf', stdout.trim(), '--strip-components=1'], { cwd: dir });
  return join(dir, 'bin', 'node');
}
