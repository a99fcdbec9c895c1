#!/usr/bin/env node
// `./pnpm pack:all [--destination DIR]`: packs every published package (each packages/*/package.json that is not
// private) into DIR, by default dist/packs/ at the root, as `pnpm pack` does for one: `workspace:*` becomes the
// version a publish would write. It builds first unless nothing the build reads changed (scripts/build.mjs), so
// each tarball has its dist/. Prints one tarball path a line on stdout. One package from its folder:
// `cd packages/core && ../../pnpm pack` (./pnpm builds before `pack` as well).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfChanged } from './build.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The folders under packages/ whose package.json is not private: what npm gets. */
export function publishedFolders() {
  return readdirSync(path.join(root, 'packages'))
    .filter((dir) => existsSync(path.join(root, 'packages', dir, 'package.json')))
    .filter((dir) => !JSON.parse(readFileSync(path.join(root, 'packages', dir, 'package.json'), 'utf8')).private)
    .sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log('Usage: ./pnpm pack:all [--destination DIR]   (default DIR: dist/packs at the repository root)');
    process.exit(0);
  }
  const at = args.indexOf('--destination');
  const destination = path.resolve(at >= 0 && args[at + 1] ? args[at + 1] : path.join(root, 'dist', 'packs'));
  const { built, status } = buildIfChanged();
  if (status !== 0) process.exit(status);
  if (!built) console.error('hilo: build is up to date');
  // last run's tarballs go: a tarball of a package's older version must not sit beside the new one
  for (const file of existsSync(destination) ? readdirSync(destination) : [])
    if (file.endsWith('.tgz')) rmSync(path.join(destination, file));
  mkdirSync(destination, { recursive: true });
  for (const dir of publishedFolders()) {
    const result = spawnSync('pnpm', ['pack', '--pack-destination', destination], {
      cwd: path.join(root, 'packages', dir),
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    if (result.error) console.error(`hilo: could not run pnpm (run this through ./pnpm): ${result.error.message}`);
    if (result.status !== 0) process.exit(result.status ?? 1);
    // pnpm pack prints the package's files, then the tarball's path as its last line
    console.log(result.stdout.trim().split('\n').at(-1));
  }
}
