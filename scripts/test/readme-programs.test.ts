import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractBlocks } from '../check-readmes.ts';
import { root } from './readme-programs.test-support.ts';

// The README programs themselves run in readme-programs.postgres.test.ts (blocks fenced ```` ```ts program ````).

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
    // the example's back-relations to the benchmark's comparison models (IdentityOrder, UuidOrder: every side's orders
    // reference customers, so the sides do the same work) are not the README's: only those lines are left out
    const shownNames = new Set(readmeModels.keys());
    const withoutUnshown = (body: string | undefined) =>
      body
        ?.split('\n')
        .filter((line) => !/^\w+ (\w+)\[\]$/.test(line) || shownNames.has(/^\w+ (\w+)\[\]$/.exec(line)![1]!))
        .join('\n');
    for (const [name, body] of readmeModels) {
      expect({ name, body }).toEqual({ name, body: withoutUnshown(example.get(name)) });
    }
    // and the quick start block is compiled against that example (see scripts/check-readmes.ts)
    expect(
      extractBlocks('packages/prisma/README.md', readme).some(
        (b) => b.in === 'examples/prisma/src' && b.code.includes('quickStart'),
      ),
    ).toBe(true);
  });
});
