import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packages = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The aliases of Kysely packages/kysely-compat installs (`"kysely-0.27.0": "npm:kysely@0.27.0"`). */
const compatAliases = Object.entries(
  (
    JSON.parse(readFileSync(join(packages, 'kysely-compat', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies,
)
  .filter(([, spec]) => spec.startsWith('npm:kysely@'))
  .map(([alias]) => join(packages, 'kysely-compat', 'node_modules', alias));

/** The Kysely installations of the workspace: hilo-kysely's own, and the aliased releases of packages/kysely-compat. */
const INSTALLATIONS = [join(packages, 'kysely', 'node_modules', 'kysely'), ...compatAliases];

/**
 * The version of the installation whose `Kysely` class is `loaded` (found by importing each installation and
 * comparing the classes), or `undefined` when it is none of them: proves which release a module mapping loaded.
 */
export async function loadedKyselyVersion(loaded: unknown): Promise<string | undefined> {
  for (const folder of INSTALLATIONS) {
    if (!existsSync(folder)) continue;
    const real = realpathSync(folder);
    const module = (await import(
      pathToFileURL(join(real, 'dist', existsSync(join(real, 'dist', 'esm')) ? 'esm' : '', 'index.js')).href
    )) as { Kysely?: unknown };
    if (module.Kysely === loaded)
      return (JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as { version: string }).version;
  }
  return undefined;
}
