import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const childDir = join(here, '..', 'child');
// Under a packages/typeorm-compat Jest project (jest.config.ts), the child maps `typeorm` to the same release.
const compatVersion = (globalThis as { HILO_TYPEORM_VERSION?: string }).HILO_TYPEORM_VERSION;
const childTsconfig =
  compatVersion === undefined
    ? join(childDir, 'tsconfig.json')
    : join(here, '..', '..', '..', 'typeorm-compat', 'child', `tsconfig.typeorm-${compatVersion}.json`);
const tsx = join(here, '..', '..', '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Runs test/child/<script>.ts in a new Node process with tsx (no decorator metadata) and parses its JSON output. */
export function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [tsx, '--tsconfig', childTsconfig, join(childDir, `${script}.ts`), ...args],
      { cwd: childDir, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
        else {
          try {
            resolve(JSON.parse(stdout) as T);
          } catch {
            reject(new Error(`${script} printed no JSON: ${stdout}\n${stderr}`));
          }
        }
      },
    );
  });
}
