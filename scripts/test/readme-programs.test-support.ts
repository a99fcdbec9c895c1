import { spawn } from 'node:child_process';
import { globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractBlocks } from '../check-readmes.ts';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A README block marked ```` ```ts program ````: `id` is `README:file`, e.g. `packages/typeorm/README.md:shop.ts`. */
export interface ReadmeProgram {
  readonly id: string;
  readonly readme: string;
  readonly file: string;
  /** `in=FOLDER`: it runs in that folder, among its files, instead of in a folder of its own. */
  readonly in?: string;
}

/** Every program block of every README (the root one and packages/*\/README*.md). */
export function readmePrograms(): ReadmeProgram[] {
  const readmes = ['README.md', ...globSync('packages/*/README*.md', { cwd: root })].sort();
  return readmes.flatMap((readme) =>
    extractBlocks(readme, readFileSync(join(root, readme), 'utf8'))
      .filter((block) => block.program === true)
      .map((block) => ({ id: `${readme}:${block.file!}`, readme, file: block.file!, in: block.in })),
  );
}

/** How a program run ended. `code` is null when it had to be killed (it did not exit in time). */
export interface ProgramRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  /** The app's folder (with `in=`, the folder it ran in), until `remove()`. */
  readonly dir: string;
  /**
   * Runs the program again, as a user running it twice would: the same files in the same folder, with the same
   * environment (so on the same database and the files it left behind).
   */
  again(): Promise<ProgramRun>;
  remove(): void;
}

/**
 * Runs a README program as a user would: its block and the README's other named blocks (the files it imports)
 * written verbatim, with `edit` applied to each, into a folder beside the README, inside the package, so
 * imports resolve as in an app that installed the package (the package by its own name, its built `dist`; the
 * drivers from the workspace), with the tsconfig the READMEs ask for (`experimentalDecorators`); then
 * `node --import tsx FILE` in that folder with `env` added, killed after `timeoutMs`. A program marked `in=FOLDER`
 * is written alone into that folder and runs there, among the files it imports (`app`, `files` do not apply).
 */
export function runReadmeProgram(
  program: Pick<ReadmeProgram, 'readme' | 'file' | 'in'>,
  env: Record<string, string>,
  options: {
    timeoutMs?: number;
    edit?: (code: string) => string;
    /** The folder (repository relative) to make the app in, for its dependencies; default the README's. */
    app?: string;
    /** Files of the app's own next to the README's, e.g. the main.ts that starts a README's Nest module. */
    files?: Record<string, string>;
  } = {},
): Promise<ProgramRun> {
  const { timeoutMs = 60_000, edit = (code: string) => code } = options;
  const blocks = extractBlocks(program.readme, readFileSync(join(root, program.readme), 'utf8'));
  const random = Math.random().toString(36).slice(2, 8);
  let dir: string;
  let file: string;
  let remove: () => void;
  if (program.in !== undefined) {
    // among the folder's own files, as check-readmes.ts compiles it there (the name is in .gitignore)
    dir = join(root, program.in);
    file = `readme-check-run-${random}-${program.file}`;
    const block = blocks.find((b) => b.program === true && b.file === program.file)!;
    writeFileSync(join(dir, file), edit(block.code));
    remove = () => rmSync(join(dir, file), { force: true });
  } else {
    dir = join(root, options.app ?? dirname(program.readme), `.readme-run-${random}`);
    file = program.file;
    mkdirSync(dir, { recursive: true });
    for (const block of blocks) if (block.file !== undefined) writeFileSync(join(dir, block.file), edit(block.code));
    for (const [name, code] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), code);
    const tsconfig = { compilerOptions: { experimentalDecorators: true } };
    writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig)}\n`);
    remove = () => rmSync(dir, { recursive: true, force: true });
  }
  const start = (): Promise<ProgramRun> => spawnProgram(file, dir, env, timeoutMs, remove, start);
  return start();
}

/** Runs `node --import tsx FILE` in `dir`; see {@link runReadmeProgram}. */
function spawnProgram(
  file: string,
  dir: string,
  env: Record<string, string>,
  timeoutMs: number,
  remove: () => void,
  again: () => Promise<ProgramRun>,
): Promise<ProgramRun> {
  const started = Date.now();
  return new Promise((settle, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed: ${file} did not exit within ${timeoutMs} ms; does it close every connection?]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      settle({ code, stdout, stderr, ms: Date.now() - started, dir, again, remove });
    });
  });
}

/** Runs `work` over `items` with at most `limit` at a time; the results in the items' order. */
export function limited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R>[] {
  let running = 0;
  const waiting: (() => void)[] = [];
  const slot = async (): Promise<void> => {
    if (running < limit) {
      running++;
      return;
    }
    await new Promise<void>((resolveSlot) => waiting.push(resolveSlot));
  };
  const free = () => {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  };
  return items.map(async (item) => {
    await slot();
    try {
      return await work(item);
    } finally {
      free();
    }
  });
}
