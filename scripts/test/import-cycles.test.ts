// No package's sources import themselves round in a circle (issue #14): every relative import, type-only
// imports and re-exports included, of every packages/*/src file, as a graph; a cycle fails with its path.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative imports of `file`, as absolute .ts paths. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  return [...text.matchAll(importPattern)].map((m) => {
    const spec = (m[1] ?? m[2])!;
    const target = resolve(dirname(file), spec);
    return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target.endsWith('.ts') ? target : `${target}.ts`;
  });
}

/** Every cycle reachable in `graph`, each as the path that closes it. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('import cycles', () => {
  it('the checker reads type-only imports and re-exports, and finds a cycle through them', () => {
    const a = '/p/src/a.ts';
    expect(importsOf(a, "import type { B } from './b.js';\nexport { c } from './c.js';\nimport x from 'pkg';")).toEqual(
      ['/p/src/b.ts', '/p/src/c.ts'],
    );
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(findCycles(graph)).toEqual([['/a.ts', '/b.ts', '/c.ts', '/a.ts']]);
  });

  const packages = readdirSync(join(root, 'packages')).filter((p) =>
    statSync(join(root, 'packages', p, 'src'), { throwIfNoEntry: false })?.isDirectory(),
  );
  it.each(packages)('packages/%s/src has none', (name) => {
    const files = sourceFiles(join(root, 'packages', name, 'src'));
    expect(files.length).toBeGreaterThan(0);
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const cycles = findCycles(graph).map((cycle) => cycle.map((f) => relative(root, f)).join(' → '));
    expect(cycles).toEqual([]);
  });
});
