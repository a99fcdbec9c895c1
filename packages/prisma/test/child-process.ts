import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerEnvironment } from './support/compat.js';

const here = dirname(fileURLToPath(import.meta.url));
const tsx = join(here, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Runs test/child/<script>.ts in a new Node process (tsx) and parses the JSON it prints. */
export function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [tsx, join(here, 'child', `${script}.ts`), ...args],
      { timeout: 60_000, env: workerEnvironment() },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`child ${script} failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}
