/**
 * Type-checks the TypeScript/JavaScript code blocks of every README (the root README.md and
 * packages/*\/README*.md, found by glob so new packages are picked up), so a snippet cannot drift from the
 * API a user installs. Run by `pnpm typecheck:only` (after `pnpm build`: packages resolve to their built
 * d.ts through each package's node_modules, as they would for a user).
 *
 * How a block is compiled:
 * - ```ts, ```typescript and ```js blocks are checked; other languages (sh, sql, prisma, …) are not.
 * - Each block is its own ES module (top-level await allowed, as in an app with `"type": "module"`), written
 *   next to its README's package, with that package's tsconfig (decorator settings included).
 * - A block whose first line is a comment naming a file (`// entities.ts` or `// shop.ts — …`), or that follows
 *   a line naming one (`` `src/entities.ts`: ``), is written under that name, so a later block of the same
 *   README can import it (`./entities.js`).
 *
 * Markers: an HTML comment on the line(s) right before the fence (invisible on npm and GitHub):
 * - `<!-- readme-check: prelude
 *   declare const prisma: …;
 *   -->` — TypeScript put before the block: the context a fragment assumes. Keep it to `declare`s/imports.
 * - `<!-- readme-check: in=examples/prisma/src -->` — compile the block as a file in that folder (repository
 *   relative), e.g. a quick start that imports a generated Prisma client.
 * - `<!-- readme-check: skip — why -->` — not compiled; the reason is required. Rare.
 *
 * A whole program, one a user can copy and run as it stands, says so on its fence: ```` ```ts program ````
 * (GitHub and npm read only the first word as the language). It must be named (`// shop.ts`) and takes no
 * prelude: `scripts/test/readme-programs.postgres.test.ts` writes it with the README's other named blocks into a
 * folder of its own and runs it with Node against a fresh database (`DATABASE_URL`), so it must create the
 * tables it uses and close what it opens, or the run times out. With `in=FOLDER` it is written into that folder
 * alone and runs among its files (e.g. next to a generated Prisma client and the files it imports).
 *
 * `hilo SUBCOMMAND … --flag` examples anywhere in a README (sh blocks, inline code, tables) are checked too:
 * every `--flag` must be an option of that subcommand in the built CLI's parser (`createProgram`).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHECK_DIR = '.readme-check';

interface Block {
  readme: string;
  /** 1-based line of the block's first code line in the README. */
  line: number;
  code: string;
  prelude: string;
  skip?: string;
  in?: string;
  file?: string;
  /** ```` ```ts program ````: a whole program that runs as written (see the top of this file). */
  program?: boolean;
}

/** Finds the checked blocks of one README with the marker that precedes each. */
export function extractBlocks(readme: string, text: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\w*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    const lang = match[1] ?? '';
    const info = (match[2] ?? '').trim();
    const code = match[3] ?? '';
    if (!['ts', 'typescript', 'js'].includes(lang)) continue;
    const line = text.slice(0, match.index).split('\n').length + 1;
    if (info !== '' && info !== 'program')
      throw new Error(`${readme}:${line}: unknown word "${info}" after \`\`\`${lang} (only "program" is known)`);
    const before = text.slice(0, match.index).trimEnd();
    const marker = /<!--\s*readme-check:((?:(?!<!--)[\s\S])*?)-->$/.exec(before)?.[1]?.trim() ?? '';
    const block: Block = { readme, line, code, prelude: '' };
    if (/^skip\b/.test(marker)) {
      const why = marker.replace(/^skip\s*[—:-]?\s*/, '');
      if (why === '')
        throw new Error(`${readme}:${line}: a skipped block must say why (<!-- readme-check: skip — reason -->)`);
      block.skip = why;
    } else if (marker.startsWith('prelude')) {
      block.prelude = marker.slice('prelude'.length).trim();
    } else if (marker.startsWith('in=')) {
      block.in = marker.slice(3).trim();
    } else if (marker !== '') {
      throw new Error(`${readme}:${line}: unknown readme-check marker "${marker}" (prelude, in=PATH or skip — why)`);
    }
    const named =
      /^\/\/\s*([\w.-]+\.ts)\b/.exec(code) ?? /^`(?:[\w.-]*\/)*([\w.-]+\.ts)`:?$/.exec(before.split('\n').at(-1) ?? '');
    if (named !== null) block.file = named[1];
    if (info === 'program') {
      if (block.file === undefined)
        throw new Error(`${readme}:${line}: a program block must be named by its first line (// shop.ts)`);
      if (block.prelude !== '' || block.skip !== undefined)
        throw new Error(`${readme}:${line}: a program block runs as written: no prelude, no skip (in= is fine)`);
      block.program = true;
    }
    blocks.push(block);
  }
  return blocks;
}

function readmes(): string[] {
  return ['README.md', ...globSync('packages/*/README*.md', { cwd: root })].sort();
}

interface Written {
  path: string;
  block: Block;
  /** Lines added before the block's code in the written file. */
  offset: number;
}

interface CliCommand {
  name(): string;
  options: readonly { long?: string }[];
  commands: readonly CliCommand[];
}

/** The options of each `hilo` subcommand (and of `hilo` itself, under ''), read from the built CLI's parser. */
async function cliOptions(): Promise<Map<string, Set<string>>> {
  // resolved like a user's import of hilo-cli, so the check follows whatever build layout the package ships
  const entry = createRequire(join(root, 'packages/cli/package.json')).resolve('hilo-cli');
  const cli = (await import(pathToFileURL(entry).href)) as { createProgram(io: unknown): CliCommand };
  const sink = { write: () => true };
  const program = cli.createProgram({ stdout: sink, stderr: sink });
  const flags = (command: CliCommand) =>
    new Set(['--help', ...command.options.flatMap((o) => (o.long === undefined ? [] : [o.long]))]);
  const options = new Map([['', flags(program)]]);
  for (const command of program.commands) options.set(command.name(), flags(command));
  return options;
}

/** `hilo next --blocksize 5` in a README: the flags each mentioned subcommand does not have. */
export function unknownCliFlags(readme: string, text: string, options: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    for (const match of line.matchAll(/\bhilo(?: ([a-z]+)\b)?((?: +--?[a-zA-Z][\w-]*| +[^\s`|]+)*)/g)) {
      const sub = match[1] ?? '';
      const known = options.get(sub);
      if (known === undefined) continue; // prose ("hilo checks …"), not a command
      for (const flag of (match[2] ?? '').matchAll(/(?<=\s|\[)--[a-zA-Z][\w-]*/g)) {
        if (!known.has(flag[0]))
          problems.push(`${readme}:${index + 1}: \`${sub === '' ? 'hilo' : `hilo ${sub}`}\` has no option ${flag[0]}`);
      }
    }
  });
  return problems;
}

async function main(): Promise<number> {
  const written: Written[] = [];
  const scratch: string[] = [];
  const projects = new Map<string, string[]>();
  let skipped = 0;
  try {
    for (const readme of readmes()) {
      const blocks = extractBlocks(readme, readFileSync(join(root, readme), 'utf8'));
      const home = dirname(join(root, readme));
      const dir = join(home, CHECK_DIR, basename(readme, '.md'));
      for (const block of blocks) {
        if (block.skip !== undefined) {
          skipped++;
          continue;
        }
        const prelude = block.prelude === '' ? '' : `${block.prelude}\n`;
        const source = `${prelude}${block.code}\nexport {};\n`;
        const name = block.file ?? `block-${block.line}.ts`;
        let path: string;
        if (block.in !== undefined) {
          const target = join(root, block.in);
          if (!existsSync(target))
            throw new Error(`${readme}:${block.line}: in=${block.in} does not exist (run pnpm build?)`);
          path = join(target, `readme-check-${basename(readme, '.md')}-${block.line}.ts`);
          scratch.push(path);
        } else {
          path = join(dir, name);
        }
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, source);
        written.push({ path, block, offset: prelude === '' ? 0 : prelude.split('\n').length - 1 });
        const files = projects.get(dir) ?? [];
        files.push(path);
        projects.set(dir, files);
      }
    }

    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    let failures = 0;
    const options = await cliOptions();
    for (const readme of readmes()) {
      for (const problem of unknownCliFlags(readme, readFileSync(join(root, readme), 'utf8'), options)) {
        failures++;
        console.error(problem);
      }
    }
    for (const [dir, files] of projects) {
      const home = resolve(dir, '../..');
      const base = existsSync(join(home, 'tsconfig.json'))
        ? join(home, 'tsconfig.json')
        : join(root, 'tsconfig.base.json');
      const tsconfig = join(dir, 'tsconfig.json');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        tsconfig,
        JSON.stringify({
          extends: relative(dir, base),
          compilerOptions: {
            rootDir: relative(dir, root),
            noEmit: true,
            types: ['node'],
            allowJs: true,
            checkJs: true,
          },
          include: [],
          files: files.map((file) => relative(dir, file)),
        }),
      );
      try {
        execFileSync(process.execPath, [tsc, '-p', tsconfig, '--pretty', 'false'], {
          cwd: root,
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        const output = String((error as { stdout?: string }).stdout ?? error);
        for (const line of output.split('\n').filter((l) => l.trim() !== '')) {
          failures++;
          console.error(mapToReadme(line, written));
        }
      }
    }
    const checked = written.length;
    if (failures > 0) {
      console.error(`readme-check: ${failures} error(s) in README code blocks (${checked} blocks checked)`);
      return 1;
    }
    console.log(`readme-check: ${checked} README code blocks type-check (${skipped} skipped with a reason)`);
    return 0;
  } finally {
    for (const readme of readmes())
      rmSync(join(dirname(join(root, readme)), CHECK_DIR), { recursive: true, force: true });
    for (const path of scratch) rmSync(path, { force: true });
  }
}

/** Rewrites `file(line,col): error …` to point at the README line the user would edit. */
function mapToReadme(line: string, written: Written[]): string {
  const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
  if (match === null) return line;
  const path = resolve(root, match[1]!);
  const hit = written.find((w) => w.path === path);
  if (hit === undefined) return line;
  const at = Number(match[2]) - hit.offset;
  const where =
    at < 1
      ? `${hit.block.readme}:${hit.block.line} (prelude line ${match[2]})`
      : `${hit.block.readme}:${hit.block.line + at - 1}:${match[3]}`;
  return `${where}: ${match[4]}`;
}

// run as a script (pnpm typecheck:only); imported by its test, it only provides the parsers
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main();
