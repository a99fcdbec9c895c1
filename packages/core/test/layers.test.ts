// hilo-core's folders are layers (issue #38): each may import its own layer and the ones below it, never one
// above. Read from the sources' import statements (type-only imports and re-exports included), so a wrong
// import fails here with the file and the import, before it becomes a cycle somewhere else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/**
 * The layers from the bottom up: the first pattern a path (relative to src/) matches names its layer. What
 * the engine knows of databases is nothing; dialects build on the generic SQL layer and the generic sources;
 * operations look a dialect up by name; presets and the package entries sit on top.
 */
const LAYERS: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'errors', pattern: /^(errors|error-messages)\.ts$/ },
  { name: 'engine', pattern: /^engine\// },
  { name: 'sql', pattern: /^sql\// },
  { name: 'sources', pattern: /^sources\// },
  { name: 'dialects', pattern: /^dialects\// },
  { name: 'operations', pattern: /^operations\// },
  { name: 'graph', pattern: /^graph\// },
  { name: 'presets', pattern: /^presets\// },
  { name: 'entries', pattern: /^(adapter-kit\/[^/]+|index|kit|otel)\.ts$/ },
];

const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports in `text` of the file at `path` (relative to src/), as paths relative to src/. */
function importsOf(path: string, text: string): string[] {
  return [...text.matchAll(importPattern)].map((m) => {
    const target = relative(src, resolve(src, dirname(path), (m[1] ?? m[2])!));
    return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
  });
}

/** The index of the layer `path` (relative to src/) belongs to; -1 when none claims it. */
function layerOf(path: string): number {
  return LAYERS.findIndex((layer) => layer.pattern.test(path));
}

/** Every import in `files` (path → text) that reaches a layer above the importing file's, as `from → to (layer → layer)`. */
function upwardImports(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of files) {
    for (const target of importsOf(path, text)) {
      const [from, to] = [layerOf(path), layerOf(target)];
      if (to > from) found.push(`${path} → ${target} (${LAYERS[from]!.name} imports ${LAYERS[to]!.name})`);
    }
  }
  return found;
}

/** The dialect folder `path` (relative to src/) lies in, e.g. `postgres` for `dialects/postgres/client.ts`. */
function dialectFolderOf(path: string): string | undefined {
  return /^dialects\/([^/]+)\//.exec(path)?.[1];
}

/**
 * Every import in `files` from one dialect's folder into another's, as `from → to`: what two dialects share
 * belongs in sql/ (the contract every database implements), so a dialect can be read, changed or dropped alone.
 */
function crossDialectImports(files: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of files) {
    const own = dialectFolderOf(path);
    if (own === undefined) continue;
    for (const target of importsOf(path, text)) {
      const other = dialectFolderOf(target);
      if (other !== undefined && other !== own) found.push(`${path} → ${target}`);
    }
  }
  return found;
}

describe('hilo-core layers', () => {
  const files = new Map(sourceFiles(src).map((file) => [relative(src, file), readFileSync(file, 'utf8')]));

  it('every source file belongs to a layer', () => {
    expect([...files.keys()].filter((path) => layerOf(path) === -1)).toEqual([]);
  });

  it('no file imports a layer above its own', () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it('no dialect imports another dialect (what they share lives in sql/)', () => {
    expect(crossDialectImports(files)).toEqual([]);
  });

  it('the dialect check finds an import from one dialect folder into another, not one into dialects/index.ts', () => {
    const bad = new Map([
      ['dialects/mysql/client.ts', "import { driverParams } from '../postgres/client.js';"],
      ['dialects/sqlite/connect.ts', "import type { Dialect } from '../index.js';"],
      ['dialects/postgres/connect.ts', "import { pgClient } from './client.js';"],
    ]);
    expect(crossDialectImports(bad)).toEqual(['dialects/mysql/client.ts → dialects/postgres/client.ts']);
  });

  it('the check finds an upward import, type-only or re-exported', () => {
    const bad = new Map([
      ['dialects/postgres/client.ts', "import type { SqlSourceKind } from '../../operations/sources.js';"],
      ['engine/options.ts', "export { DIALECTS } from '../dialects/index.js';"],
      ['sql/driver-errors.ts', "import { DIALECTS } from '../dialects/index.js';"],
      ['operations/connect.ts', "import { openPostgres } from '../dialects/postgres/connect.js';"],
      ['presets/shared.ts', "import { keyToField } from '../adapter-kit/key-fields.js';"],
      ['adapter-kit/key-supply.ts', "import { connect } from '../operations/connect.js';"],
    ]);
    expect(upwardImports(bad)).toEqual([
      'dialects/postgres/client.ts → operations/sources.ts (dialects imports operations)',
      'engine/options.ts → dialects/index.ts (engine imports dialects)',
      'sql/driver-errors.ts → dialects/index.ts (sql imports dialects)',
      'presets/shared.ts → adapter-kit/key-fields.ts (presets imports entries)',
    ]);
  });
});
