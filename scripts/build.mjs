#!/usr/bin/env node
// `./pnpm build`: builds every workspace project (`pnpm -r run build`, then `pnpm -r run build:test`: the Prisma
// test clients) unless nothing the build reads changed since the last successful build here. The proof is a hash of
// every tracked file but tests and Markdown, with the Node.js version, kept in node_modules/.cache/hilo-build-stamp;
// `--force` builds anyway. Every test tier builds through it, so a run after editing only a test starts at once.
// `./pnpm demo` builds only what the demo runs (`--demo`: the example apps and the workspace packages they use, the
// set `./pnpm` installs for it), and stamps that as a demo build, which a full build never takes for its own.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const isFile = (file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;
const stampFile = path.join(root, 'node_modules', '.cache', 'hilo-build-stamp');

/**
 * pnpm's selector for what `./pnpm demo` installs and builds: the example apps and every workspace project they
 * depend on (the `./pnpm` wrapper spells the same selector for the install).
 */
export const DEMO_SELECTOR = 'hilo-example-*...';

/**
 * A hash of what the build reads: every file git tracks or would track, but Markdown and what lies under a `test/`
 * folder (the Prisma schemas there excepted: the full build generates the test clients from them).
 */
function buildInputsHash() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) return undefined; // not a git checkout: always build
  const hash = createHash('sha256').update(process.version).update('\0');
  const files = listed.stdout
    .split('\0')
    .filter((file) => file !== '' && !file.endsWith('.md') && (!/(^|\/)test\//.test(file) || file.endsWith('.prisma')))
    .sort();
  for (const file of files) {
    const full = path.join(root, file);
    if (!isFile(full)) continue; // deleted in the work tree, or a link to a folder (a clone's .tools)
    hash.update(file).update('\0').update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}

/** The workspace projects (folder and manifest) under packages/ and examples/, as git lists them. */
function workspaceProjects() {
  const listed = spawnSync('git', ['ls-files', '-z', '--', 'packages/*/package.json', 'examples/*/package.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed.stdout
    .split('\0')
    .filter((file) => file !== '')
    .map((file) => ({ dir: path.dirname(file), manifest: JSON.parse(readFileSync(path.join(root, file), 'utf8')) }));
}

/**
 * The folders of the projects {@link DEMO_SELECTOR} selects: the examples, and the workspace projects they depend
 * on (`workspace:` specifiers, in any dependency field), transitively.
 */
export function demoProjects() {
  const projects = workspaceProjects();
  const byName = new Map(projects.map((p) => [p.manifest.name, p]));
  const selected = new Set();
  const visit = (project) => {
    if (selected.has(project.dir)) return;
    selected.add(project.dir);
    const { dependencies = {}, devDependencies = {}, optionalDependencies = {} } = project.manifest;
    for (const [name, specifier] of Object.entries({ ...dependencies, ...devDependencies, ...optionalDependencies })) {
      const dependency = byName.get(name);
      if (dependency && String(specifier).startsWith('workspace:')) visit(dependency);
    }
  };
  for (const project of projects) if (project.dir.startsWith('examples/')) visit(project);
  return [...selected].sort();
}

/** Whether every project of the build that compiles still has its `dist` (one may be deleted by hand). */
function outputsPresent(scope) {
  const demo = scope === 'demo' ? new Set(demoProjects()) : undefined;
  return (
    workspaceProjects()
      // projects whose build compiles into dist (examples/prisma's generates a client first)
      .filter(
        ({ dir, manifest }) => /build-package|tsc /.test(manifest.scripts?.build ?? '') && (!demo || demo.has(dir)),
      )
      .every(({ dir }) => existsSync(path.join(root, dir, 'dist')))
  );
}

/**
 * What the stamp says was built last, and for which inputs: `full HASH` (every project, test clients included) or
 * `demo HASH` (only what the demo runs).
 */
function readStamp() {
  if (!existsSync(stampFile)) return undefined;
  const [scope, hash] = readFileSync(stampFile, 'utf8').trim().split(' ');
  return { scope, hash };
}

/**
 * Builds unless the stamp proves the inputs unchanged since the last successful build of at least this scope: a full
 * build satisfies both scopes, a demo build only the demo.
 * @param {{ force?: boolean, scope?: 'full' | 'demo' }} [options]
 * @returns {{ built: boolean, status: number }}
 */
export function buildIfChanged(options = {}) {
  const scope = options.scope ?? 'full';
  const want = buildInputsHash();
  const stamp = readStamp();
  if (
    !options.force &&
    want !== undefined &&
    stamp?.hash === want &&
    (stamp.scope === 'full' || stamp.scope === scope) &&
    outputsPresent(scope)
  ) {
    return { built: false, status: 0 };
  }
  rmSync(stampFile, { force: true });
  const commands =
    scope === 'demo'
      ? [['--filter', DEMO_SELECTOR, 'run', 'build']]
      : [
          ['-r', 'run', 'build'],
          ['-r', 'run', 'build:test'],
        ];
  let status = 0;
  for (const args of commands) {
    const result = spawnSync('pnpm', args, { cwd: root, stdio: 'inherit' });
    if (result.error) console.error(`hilo: could not run pnpm (run the build through ./pnpm): ${result.error.message}`);
    status = result.status ?? 1;
    if (status !== 0) break;
  }
  if (status === 0 && want !== undefined) {
    mkdirSync(path.dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, `${scope} ${want}\n`);
  }
  return { built: true, status };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const scope = process.argv.includes('--demo') ? 'demo' : 'full';
  const { built, status } = buildIfChanged({ force: process.argv.includes('--force'), scope });
  if (!built) console.error('hilo: build is up to date (node scripts/build.mjs --force rebuilds)');
  process.exit(status);
}
