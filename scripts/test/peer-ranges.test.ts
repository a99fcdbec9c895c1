// Every peer range is what the suites run (README "Supported library versions"): the lowest release each range
// admits is installed by a packages/*-compat package (or by the package itself) and run by a Jest project, and
// every release the suites run lies inside the range. A range widened or a compat release moved without the
// other fails here, so the two cannot drift apart again (MikroORM's range once said 7.0 while only 7.2 worked).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PUBLISHED = ['core', 'typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely', 'cli'];

interface Manifest {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const manifest = (path: string): Manifest => JSON.parse(readFileSync(path, 'utf8')) as Manifest;

type Version = { numbers: number[]; pre: string | undefined };
function parse(text: string): Version {
  const [main, pre] = text.split('-', 2) as [string, string | undefined];
  const numbers = main.split('.').map(Number);
  while (numbers.length < 3) numbers.push(0);
  return { numbers, pre };
}
function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.numbers[i] !== b.numbers[i]) return a.numbers[i]! - b.numbers[i]!;
  if (a.pre === b.pre) return 0;
  if (a.pre === undefined) return 1;
  if (b.pre === undefined) return -1;
  return a.pre.localeCompare(b.pre, 'en', { numeric: true });
}
const format = (v: Version) => v.numbers.join('.') + (v.pre === undefined ? '' : `-${v.pre}`);

/**
 * The alternatives of a range (`A || B`), each a list of comparators such as `>=0.3.20` or an exact version; a
 * caret range `^X.Y.Z` (X > 0) is the pair `>=X.Y.Z <X+1.0.0`.
 */
const alternatives = (range: string) =>
  range.split('||').map((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .flatMap((c) => {
        const caret = /^\^([1-9]\d*)\.(\d+)\.(\d+)$/.exec(c);
        return caret ? [`>=${caret[1]}.${caret[2]}.${caret[3]}`, `<${Number(caret[1]) + 1}.0.0`] : [c];
      }),
  );

/** The lowest release each alternative admits: its `>=` bound or its exact version. */
function lowestReleases(range: string): string[] {
  return alternatives(range).map((comparators) => {
    const lowest = comparators.find((c) => c.startsWith('>=') || /^\d/.test(c));
    if (lowest === undefined) throw new Error(`range ${range} has an alternative without a lower bound`);
    return format(parse(lowest.replace(/^>=/, '')));
  });
}

function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return alternatives(range).some((comparators) =>
    comparators.every((c) => {
      const [, op = '', bound = ''] = /^(>=|<=|>|<|=)?(.+)$/.exec(c)!;
      const d = compare(v, parse(bound));
      return op === '>=' ? d >= 0 : op === '<' ? d < 0 : op === '>' ? d > 0 : op === '<=' ? d <= 0 : d === 0;
    }),
  );
}

/** Releases of `name` the compat packages install: under the name itself, or as an npm alias of it. */
function compatReleases(name: string): string[] {
  const found: string[] = [];
  for (const folder of readdirSync(join(root, 'packages')).filter((f) => f.endsWith('-compat'))) {
    const deps = manifest(join(root, 'packages', folder, 'package.json')).devDependencies ?? {};
    for (const [key, spec] of Object.entries(deps)) {
      // an exact release under the name itself (a range such as ^8.23.1 is a helper dependency, not a release run)
      if (key === name && /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) found.push(spec);
      const alias = /^npm:(.+)@([^@]+)$/.exec(spec);
      if (alias?.[1] === name) found.push(alias[2]!);
    }
  }
  return found;
}

/**
 * Releases an end-to-end file runs instead of a compat project, because the Jest projects' Node.js 24 cannot:
 * better-sqlite3 12 aborts Node.js 24.19 and later, so scripts/test/better-sqlite3-12.test.ts installs the lowest 12
 * of hilo-core's range (it reads it from the range, `^12.x.y`) and runs hilo on it under Node.js 22.
 */
function endToEndReleases(name: string, range: string): string[] {
  const lowest12 = /\^(12\.\d+\.\d+)/.exec(range)?.[1];
  const file = join(root, 'scripts', 'test', 'better-sqlite3-12.test.ts');
  // that file must take the release from hilo-core's range, or this would count one it does not run
  const readsRange = existsSync(file) && readFileSync(file, 'utf8').includes("peerDependencies['better-sqlite3']");
  return name === 'better-sqlite3' && lowest12 !== undefined && readsRange ? [lowest12] : [];
}

/** The release of `name` installed for the package itself (what its own suites run). */
function workspaceRelease(folder: string, name: string): string | undefined {
  const from = join(root, 'packages', folder, 'package.json');
  try {
    return manifest(createRequire(from).resolve(`${name}/package.json`)).version;
  } catch {
    return undefined;
  }
}

const cases = PUBLISHED.filter((folder) => existsSync(join(root, 'packages', folder, 'package.json'))).flatMap(
  (folder) =>
    Object.entries(manifest(join(root, 'packages', folder, 'package.json')).peerDependencies ?? {}).map(
      ([name, range]) => ({ folder, name, range }),
    ),
);

it('finds the peer ranges of the published packages', () => {
  expect(cases.map((c) => `${c.folder}:${c.name}`)).toEqual(
    expect.arrayContaining([
      'core:pg',
      'core:better-sqlite3',
      'typeorm:typeorm',
      'prisma:@prisma/client',
      'mikro-orm:@mikro-orm/core',
      'drizzle:drizzle-orm',
      'kysely:kysely',
    ]),
  );
});

it.each(cases)(
  '$folder: the lowest release of $name $range is run, and every release run is inside it',
  ({ folder, name, range }) => {
    const run = [...compatReleases(name), ...endToEndReleases(name, range), workspaceRelease(folder, name)].filter(
      (v): v is string => v !== undefined,
    );
    for (const lowest of lowestReleases(range)) expect(run).toContain(lowest);
    for (const version of run)
      expect({ version, inside: satisfies(version, range) }).toEqual({ version, inside: true });
  },
);
