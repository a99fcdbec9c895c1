import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const childDir = join(here, '..', 'child');
const tsx = join(here, '..', '..', '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Runs test/child/<script>.ts in a new Node process with tsx (no decorator metadata) and parses its JSON output. */
export function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [tsx, '--tsconfig', join(childDir, 'tsconfig.json'), join(childDir, `${script}.ts`), ...args],
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
