import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractBlocks } from '../check-readmes.ts';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Writes the named blocks of a README (`// entities.ts`, `// shop.ts`, …) into a fresh folder beside it, as a
 * user copying them into an app would, with `edit` applied to each (e.g. the one line a user changes for
 * another database). Returns the folder's URL and a clean-up.
 */
export function writeReadmeProgram(
  readme: string,
  files: readonly (string | { name: string; where: (code: string) => boolean })[],
  edit: (code: string) => string = (code) => code,
): { url: (file: string) => string; remove: () => void } {
  const blocks = extractBlocks(readme, readFileSync(join(root, readme), 'utf8'));
  const dir = join(root, dirname(readme), `.readme-run-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  for (const file of files) {
    // a block named in the README (`// shop.ts`), or an unnamed one picked by its content
    const [name, block] =
      typeof file === 'string'
        ? [file, blocks.find((b) => b.file === file)]
        : [file.name, blocks.find((b) => file.where(b.code))];
    if (block === undefined) throw new Error(`${readme} has no block ${name}`);
    writeFileSync(join(dir, name), edit(block.code));
  }
  return {
    url: (file) => pathToFileURL(join(dir, file)).href,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
