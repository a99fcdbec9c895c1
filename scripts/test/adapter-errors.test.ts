// Every adapter re-exports hilo-core's typed errors (issue #48): an application that imports only its adapter
// checks `error instanceof HiLoStoreBehindError` without adding hilo-core, and the class it gets is hilo-core's
// own, so one check catches an error hilo-core threw. Checked on the sources (ESM, as Jest maps the packages) and
// on each adapter's CommonJS build (dist/cjs) as a CommonJS app requires it, in a Node.js process of its own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The error classes of hilo-core, as the adapters see them. */
type ErrorClass = new (message: string) => Error;

/** hilo-core as Jest maps it for the adapters (imported by name: the scripts folder does not depend on it). */
const coreName = 'hilo-core';
const core = (await import(coreName)) as Record<string, unknown> & { HiLoError: ErrorClass };

/** Each adapter's package name and folder. */
const ADAPTERS: ReadonlyArray<readonly [string, string]> = [
  ['hilo-typeorm', 'typeorm'],
  ['hilo-prisma', 'prisma'],
  ['hilo-mikro-orm', 'mikro-orm'],
  ['hilo-kysely', 'kysely'],
  ['hilo-drizzle', 'drizzle'],
];

/** The names of hilo-core's error classes: HiLoError and every class extending it that the root exports. */
const ERROR_NAMES = Object.entries(core)
  .filter(
    ([, value]) => value === core.HiLoError || (value as { prototype?: unknown }).prototype instanceof core.HiLoError,
  )
  .map(([name]) => name)
  .sort();

/** The error classes an adapter's exports get wrong: missing, or another class than hilo-core's of that name. */
function wrongErrors(adapter: Record<string, unknown>, from: Record<string, unknown>): string[] {
  return ERROR_NAMES.filter((name) => adapter[name] !== from[name]);
}

describe("the adapters re-export hilo-core's typed errors", () => {
  it('hilo-core has the error classes this test looks for', () => {
    expect(ERROR_NAMES).toEqual(
      expect.arrayContaining(['HiLoError', 'HiLoConfigurationError', 'HiLoStoreBehindError']),
    );
    expect(ERROR_NAMES.length).toBeGreaterThanOrEqual(13);
  });

  it('the check finds a missing class and one of another copy', () => {
    class HiLoError extends Error {}
    const all = Object.fromEntries(ERROR_NAMES.map((name) => [name, core[name]]));
    expect(wrongErrors({ ...all, HiLoError, HiLoClosedError: undefined }, core)).toEqual([
      'HiLoClosedError',
      'HiLoError',
    ]);
  });

  it.each(ADAPTERS)('%s re-exports every one, the same class as hilo-core (ESM)', async (name) => {
    const adapter = (await import(name)) as Record<string, unknown>;
    expect(wrongErrors(adapter, core)).toEqual([]);
    const error: unknown = new (adapter['HiLoConfigurationError'] as ErrorClass)('bad option');
    expect(error).toBeInstanceOf(core.HiLoError);
  });

  it("each adapter's CommonJS build re-exports every one, the same class as hilo-core's CommonJS build", () => {
    const missing = ADAPTERS.filter(([, dir]) => !existsSync(join(root, 'packages', dir, 'dist', 'cjs', 'index.js')));
    if (missing.length > 0)
      throw new Error(`no CommonJS build of ${missing.map(([n]) => n).join(', ')}; run \`./pnpm build\` first`);
    // a CommonJS program, as an application's `require` runs it: each adapter resolved from its own folder
    const program = `
      const { createRequire } = require('node:module');
      const path = require('node:path');
      const names = ${JSON.stringify(ERROR_NAMES)};
      const root = ${JSON.stringify(root)};
      const result = {};
      for (const [name, dir] of ${JSON.stringify(ADAPTERS)}) {
        const req = createRequire(path.join(root, 'packages', dir, 'package.json'));
        const adapter = req(name);
        const core = req('hilo-core');
        result[name] = {
          files: [path.relative(root, req.resolve(name)), path.relative(root, req.resolve('hilo-core'))],
          wrong: names.filter((n) => adapter[n] !== core[n] || typeof core[n] !== 'function'),
        };
      }
      process.stdout.write(JSON.stringify(result));
    `;
    const run = spawnSync(process.execPath, ['--no-warnings', '-e', program], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as Record<string, { files: string[]; wrong: string[] }>;
    for (const [name, dir] of ADAPTERS) {
      expect({ name, ...result[name] }).toEqual({
        name,
        files: [join('packages', dir, 'dist', 'cjs', 'index.js'), join('packages', 'core', 'dist', 'cjs', 'index.js')],
        wrong: [],
      });
    }
  });
});
