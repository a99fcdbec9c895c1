import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './readme-programs.test-support.ts';

// The READMEs once listed `init, next, status, floor` after `check` and `alter` had landed. Every subcommand of the
// `hilo` parser (read in-process, as `hilo --help` lists them) must be in the root README's hilo-cli row and in
// hilo-cli's README: its usage block and a section of its own. The parser is the built CLI's, resolved as a user's
// import of hilo-cli is (scripts/check-readmes.ts reads its options the same way).

interface CliCommand {
  name(): string;
  commands: readonly CliCommand[];
}

let commands: string[] = [];
beforeAll(async () => {
  const entry = createRequire(join(root, 'packages/cli/package.json')).resolve('hilo-cli');
  const cli = (await import(pathToFileURL(entry).href)) as { createProgram(io: unknown): CliCommand };
  const sink = { write: () => true };
  commands = cli.createProgram({ stdout: sink, stderr: sink }).commands.map((command) => command.name());
});
const readme = (path: string) => readFileSync(join(root, path), 'utf8');

describe('READMEs list every hilo command', () => {
  it('the parser has the commands this test was written against, at least', () => {
    expect(commands).toEqual(expect.arrayContaining(['init', 'next', 'status', 'floor', 'check', 'alter']));
  });

  it("the root README's hilo-cli row names each", () => {
    const row = readme('README.md')
      .split('\n')
      .find((line) => line.startsWith('| [`hilo-cli`]'));
    expect(row).toBeDefined();
    expect(commands.filter((name) => !row!.includes(`\`${name}\``))).toEqual([]);
  });

  it("hilo-cli's README has each in its usage block and a section `### \\`hilo NAME …\\``", () => {
    const text = readme('packages/cli/README.md');
    const usage = /^## Usage\n\n```\n([\s\S]*?)^```$/m.exec(text)?.[1] ?? '';
    expect(commands.filter((name) => !new RegExp(`^hilo ${name} `, 'm').test(usage))).toEqual([]);
    expect(commands.filter((name) => !new RegExp(`^### \`hilo ${name}[ \`]`, 'm').test(text))).toEqual([]);
  });
});
