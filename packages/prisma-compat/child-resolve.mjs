// Module resolution hook for packages/prisma-compat/child-hooks.mjs: hilo-prisma's test clients, Prisma's
// extension module and the driver adapters resolve to what packages/prisma-compat installed and generated.
import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = new URL('./', import.meta.url);
/** A file of this folder as Node's own resolver would name it: symlinks resolved, so its dependencies resolve too. */
const here = (path) => pathToFileURL(realpathSync(fileURLToPath(new URL(path, root)))).href;
const GENERATED = /^(?:\.{1,2}\/)+generated\/(postgres|mysql)\/(client|hilo)\.js$/;
const ADAPTER = /^@prisma\/adapter-(pg|mariadb)$/;
const WORKSPACE_GENERATED = /\/packages\/prisma\/test\/generated\/(postgres|mysql)\/(client|hilo)\.ts$/;

export async function resolve(specifier, context, next) {
  const generated = GENERATED.exec(specifier);
  if (generated && context.parentURL?.includes('/packages/prisma/test/')) {
    return { url: here(`generated/${generated[1]}/${generated[2]}.ts`), shortCircuit: true };
  }
  if (specifier === '@prisma/client/extension') {
    return { url: here('node_modules/@prisma/client/extension.js'), shortCircuit: true };
  }
  const adapter = ADAPTER.exec(specifier);
  if (adapter) return { url: here(`node_modules/@prisma/adapter-${adapter[1]}/dist/index.mjs`), shortCircuit: true };
  // a hook registered after this one (tsx, when these hooks come through NODE_OPTIONS) may already have turned
  // the specifier into the workspace's file: redirect what it resolved to
  const resolved = await next(specifier, context);
  const workspace = WORKSPACE_GENERATED.exec(resolved.url);
  return workspace ? { ...resolved, url: here(`generated/${workspace[1]}/${workspace[2]}.ts`) } : resolved;
}
