import { execFileSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { root } from './readme-programs.test-support.ts';

// pnpm links the bins of a workspace package into the node_modules/.bin of every workspace package that depends
// on it, at install, before anything is built. A bin that points into dist/ then fails with "WARN Failed to
// create bin … ENOENT" on every fresh ./pnpm install (hilo-prisma-generator did, four times).

interface Manifest {
  name: string;
  bin?: string | Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const manifests = ['package.json', ...globSync('{packages,examples}/*/package.json', { cwd: root })].map((path) => ({
  dir: path.replace(/\/?package\.json$/, ''),
  manifest: JSON.parse(readFileSync(join(root, path), 'utf8')) as Manifest,
}));
const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n'));

describe('workspace bins', () => {
  it('every bin another workspace package installs is a committed file that the published package ships', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const { dir, manifest } of manifests) {
      const bins = typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
      const dependents = manifests.filter(
        (m) => m.manifest.dependencies?.[manifest.name] ?? m.manifest.devDependencies?.[manifest.name],
      );
      if (dependents.length === 0) continue;
      for (const [name, target] of Object.entries(bins)) {
        checked++;
        const file = normalize(join(dir, target));
        if (!tracked.has(file)) problems.push(`${manifest.name}: bin ${name} -> ${target} is not a committed file`);
        if (!(manifest.files ?? []).some((entry) => normalize(target).startsWith(normalize(entry))))
          problems.push(`${manifest.name}: bin ${name} -> ${target} is outside "files"`);
        else if (!readFileSync(join(root, file), 'utf8').startsWith('#!/usr/bin/env node\n'))
          problems.push(`${manifest.name}: bin ${name} -> ${target} lacks #!/usr/bin/env node`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0); // hilo-prisma-generator, installed by examples/prisma and prisma-compat
  });
});
