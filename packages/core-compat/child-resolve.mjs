// Module resolution hook for packages/core-compat/child-hooks.mjs: each optional peer of hilo-core (`pg`,
// `postgres`, `mysql2`, `mariadb`, `better-sqlite3`, `@opentelemetry/api`, with their subpaths) resolves to the oldest release this
// folder installs as an npm alias, read from its package.json as jest.config.ts reads it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const from = new URL('./package.json', import.meta.url);
const { devDependencies } = JSON.parse(readFileSync(from, 'utf8'));
/** name → alias, from entries like `"pg-8.11.0": "npm:pg@8.11.0"`. */
const aliases = Object.entries(devDependencies).map(([alias, spec]) => [/^npm:(.+)@[^@]+$/.exec(spec)[1], alias]);
/** A better-sqlite3 package folder that replaces the alias (HILO_BETTER_SQLITE3_DIR, as in jest.config.ts). */
const betterSqlite3Dir = process.env.HILO_BETTER_SQLITE3_DIR;

export async function resolve(specifier, context, next) {
  if (betterSqlite3Dir && (specifier === 'better-sqlite3' || specifier.startsWith('better-sqlite3/'))) {
    // resolved from the folder that holds the package, so its own dependencies resolve from there too
    return next(specifier, { ...context, parentURL: pathToFileURL(join(betterSqlite3Dir, '..', 'index.js')).href });
  }
  for (const [name, alias] of aliases) {
    if (specifier === name || specifier.startsWith(`${name}/`)) {
      return next(alias + specifier.slice(name.length), { ...context, parentURL: from.href });
    }
  }
  return next(specifier, context);
}
