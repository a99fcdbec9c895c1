import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Utils } from '@mikro-orm/core';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The MikroORM release a packages/mikro-orm-compat Jest project maps `@mikro-orm/*` to (jest.config.ts names it
 * in this global), or `undefined` in the workspace's own project.
 */
export const compatVersion = (globalThis as { HILO_MIKRO_ORM_VERSION?: string }).HILO_MIKRO_ORM_VERSION;

/** The tsconfig a worker process runs under: under a compat project, one that maps `@mikro-orm/*` to the same release. */
export const workerTsconfig =
  compatVersion === undefined ? join(here, 'tsconfig.worker.json') : join(here, '..', '..', '..', 'mikro-orm-compat', 'child', 'tsconfig.json');

/** Environment variable telling a worker which MikroORM it must have loaded. */
const EXPECTED_VERSION_VARIABLE = 'HILO_MIKRO_ORM_EXPECTED';

/** The environment of a worker process: the parent's, plus the release it must load under a compat project. */
export function workerEnvironment(): NodeJS.ProcessEnv {
  return compatVersion === undefined ? { ...process.env } : { ...process.env, [EXPECTED_VERSION_VARIABLE]: compatVersion };
}

/** In a worker: fails unless the MikroORM loaded is the one the parent's project runs (the mapping took). */
export function checkWorkerVersion(expected: string | undefined = process.env[EXPECTED_VERSION_VARIABLE]): void {
  if (expected !== undefined && Utils.getORMVersion() !== expected) {
    throw new Error(`the worker loaded MikroORM ${Utils.getORMVersion()}, expected ${expected}`);
  }
}
