import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of package `name` as the module at `resolved` (what `import.meta.resolve(name)` gave, so after
 * any mapping to an npm alias) belongs to: the nearest package.json above it that carries that name. Read from
 * the file because not every package exports `./package.json` (postgres.js does not).
 */
export function installedVersion(name: string, resolved: string): string {
  let dir = dirname(fileURLToPath(resolved));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === name && manifest.version) return manifest.version;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of ${name} above ${resolved}`);
    dir = dirname(dir);
  }
}
