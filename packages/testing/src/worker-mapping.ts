import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Set by a Jest project (jest.config.ts `globals`) whose worker processes must load what its module mapping loads. */
interface WorkerMappingGlobals {
  /** Modules (paths from the repository root) each worker loads after tsx, e.g. module resolution hooks. */
  HILO_WORKER_IMPORTS?: readonly string[];
  /** Package name → version the worker must find loaded; passed to it as the `HILO_WORKER_PACKAGES` variable (JSON). */
  HILO_WORKER_PACKAGES?: Readonly<Record<string, string>>;
}

/**
 * Variable naming the package versions a worker must check it loaded (JSON `{ name: version }`; read by
 * packages/core/test/workers/reserve-worker.ts).
 */
const WORKER_PACKAGES_VARIABLE = 'HILO_WORKER_PACKAGES';

/**
 * The Node arguments (`--import …`) and environment additions for a worker process of the current Jest project:
 * nothing in the workspace's own project; in a compatibility project, the hooks that map its packages as its
 * `moduleNameMapper` does, and the versions the worker must prove it loaded.
 */
export function workerMapping(): { readonly args: string[]; readonly env: Record<string, string> } {
  const globals = globalThis as WorkerMappingGlobals;
  const args = (globals.HILO_WORKER_IMPORTS ?? []).flatMap((path) => [
    '--import',
    pathToFileURL(join(root, path)).href,
  ]);
  const env: Record<string, string> = globals.HILO_WORKER_PACKAGES
    ? { [WORKER_PACKAGES_VARIABLE]: JSON.stringify(globals.HILO_WORKER_PACKAGES) }
    : {};
  return { args, env };
}
