import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractBlocks } from '../check-readmes.ts';
import { root, writeReadmeProgram } from './readme-programs.test-support.ts';

describe('README programs that need no database run as written', () => {
  it("hilo-core's first example hands out the keys its comments promise", async () => {
    const program = writeReadmeProgram(
      'packages/core/README.md',
      [{ name: 'usage.ts', where: (code) => code.includes('memorySource()') }],
      (code) => `${code}\nexport { id, next, bulk };\n`,
    );
    try {
      const { id, next, bulk } = (await import(program.url('usage.ts'))) as {
        id: number;
        next: number;
        bulk: number[];
      };
      expect([id, next]).toEqual([1, 2]);
      expect(bulk).toHaveLength(1000);
      expect(bulk[0]).toBeGreaterThan(2);
    } finally {
      program.remove();
    }
  });
});

describe("hilo-typeorm's SQLite program runs as written", () => {
  it('keys an author and two books before saving, then saves them to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hilo-readme-sqlite-'));
    const file = join(dir, 'library.db');
    // the one change: the database file in a temporary folder instead of the working directory
    const program = writeReadmeProgram('packages/typeorm/README.md', ['library.ts'], (code) =>
      code.replace("database: 'library.db'", `database: ${JSON.stringify(file)}`),
    );
    const printed: unknown[] = [];
    const consoleLog = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    try {
      await import(program.url('library.ts'));
      expect(printed).toEqual([expect.stringMatching(/^author \d+, books \d+, \d+$/)]);
      const { DatabaseSync } = await import('node:sqlite');
      const db = new DatabaseSync(file);
      try {
        expect(db.prepare('select count(*) n from books').get()).toEqual({ n: 2 });
      } finally {
        db.close();
      }
    } finally {
      console.log = consoleLog;
      program.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A schema's models, blank lines and alignment ignored, so the README may format them more tightly. */
function models(schema: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const body = match[2]!
      .split('\n')
      .map((line) => line.trim().replace(/\s+/g, ' '))
      .filter((line) => line !== '');
    found.set(match[1]!, body.join('\n'));
  }
  return found;
}

describe("hilo-prisma's README schema is the one its quick start is compiled and run against", () => {
  it('declares every model it shows exactly as examples/prisma/prisma/schema.prisma does', () => {
    const readme = readFileSync(join(root, 'packages/prisma/README.md'), 'utf8');
    const shown = /```prisma\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const example = models(readFileSync(join(root, 'examples/prisma/prisma/schema.prisma'), 'utf8'));
    const readmeModels = models(shown);
    expect([...readmeModels.keys()]).toEqual(['Customer', 'Order', 'OrderItem']);
    for (const [name, body] of readmeModels) expect({ name, body }).toEqual({ name, body: example.get(name) });
    // and the quick start block is compiled against that example (see scripts/check-readmes.ts)
    expect(
      extractBlocks('packages/prisma/README.md', readme).some(
        (b) => b.in === 'examples/prisma/src' && b.code.includes('quickStart'),
      ),
    ).toBe(true);
  });
});
