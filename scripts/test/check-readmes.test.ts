import { extractBlocks, unknownCliFlags } from '../check-readmes.ts';

const fence = '```';

describe('readme-check: which README blocks are compiled, and how', () => {
  it('compiles ts, typescript and js blocks with their README line, and nothing else', () => {
    const text = [
      '# x',
      `${fence}sh`,
      'npm i x',
      fence,
      `${fence}ts`,
      'const a = 1;',
      fence,
      `${fence}js`,
      'b();',
      fence,
      `${fence}sql`,
      'select 1;',
      fence,
    ].join('\n');
    const blocks = extractBlocks('R.md', text);
    expect(blocks.map((b) => [b.line, b.code])).toEqual([
      [6, 'const a = 1;\n'],
      [9, 'b();\n'],
    ]);
  });

  it('reads the marker right before a block: prelude, in= and skip with a reason', () => {
    const text = [
      '<!-- readme-check: prelude',
      'declare const url: string;',
      '-->',
      `${fence}ts`,
      'use(url);',
      fence,
      '<!-- readme-check: in=examples/prisma/src -->',
      `${fence}ts`,
      'x;',
      fence,
      '<!-- readme-check: skip — alternatives side by side -->',
      `${fence}ts`,
      'y;',
      fence,
      `${fence}ts`,
      'z;',
      fence,
    ].join('\n');
    const [prelude, placed, skipped, plain] = extractBlocks('R.md', text);
    expect(prelude?.prelude).toBe('declare const url: string;');
    expect(placed?.in).toBe('examples/prisma/src');
    expect(skipped?.skip).toBe('alternatives side by side');
    expect(plain).toMatchObject({ prelude: '', code: 'z;\n' });
    expect(plain?.skip).toBeUndefined();
  });

  it('refuses a skip without a reason and an unknown marker', () => {
    expect(() => extractBlocks('R.md', `<!-- readme-check: skip -->\n${fence}ts\nx;\n${fence}`)).toThrow(
      /must say why/,
    );
    expect(() => extractBlocks('R.md', `<!-- readme-check: fragmnt -->\n${fence}ts\nx;\n${fence}`)).toThrow(
      /unknown readme-check marker "fragmnt"/,
    );
  });

  it('names a block after its first-line comment or the `path` line before it, so later blocks can import it', () => {
    const text = [
      `${fence}ts`,
      '// entities.ts',
      'export {};',
      fence,
      '`src/main.ts`:',
      '',
      `${fence}ts`,
      'x;',
      fence,
    ].join('\n');
    expect(extractBlocks('R.md', text).map((b) => b.file)).toEqual(['entities.ts', 'main.ts']);
  });
});

describe('readme-check: program blocks', () => {
  it('marks a named block fenced ```ts program as a program, and no other', () => {
    const text = [`${fence}ts program`, '// shop.ts', 'x;', fence, `${fence}ts`, '// entities.ts', 'y;', fence].join(
      '\n',
    );
    expect(extractBlocks('R.md', text).map((b) => [b.file, b.program ?? false, b.code])).toEqual([
      ['shop.ts', true, '// shop.ts\nx;\n'],
      ['entities.ts', false, '// entities.ts\ny;\n'],
    ]);
  });

  it('refuses a program without a name, with a prelude or skipped, and an unknown word on the fence', () => {
    expect(() => extractBlocks('R.md', `${fence}ts program\nx;\n${fence}`)).toThrow(/must be named/);
    expect(() =>
      extractBlocks('R.md', `<!-- readme-check: skip — no -->\n${fence}ts program\n// a.ts\n${fence}`),
    ).toThrow(/no prelude, no skip/);
    expect(
      extractBlocks('R.md', `<!-- readme-check: in=examples/prisma/src -->\n${fence}ts program\n// a.ts\n${fence}`),
    ).toMatchObject([{ file: 'a.ts', program: true, in: 'examples/prisma/src' }]);
    expect(() =>
      extractBlocks(
        'R.md',
        `<!-- readme-check: prelude\ndeclare const a: 1;\n-->\n${fence}ts program\n// a.ts\n${fence}`,
      ),
    ).toThrow(/no prelude, no skip/);
    expect(() => extractBlocks('R.md', `${fence}ts progam\n// a.ts\n${fence}`)).toThrow(/unknown word "progam"/);
  });
});

describe('readme-check: hilo command lines name only real flags', () => {
  const options = new Map([
    ['', new Set(['--help', '--version'])],
    ['next', new Set(['--help', '--url', '--count', '--block-size'])],
  ]);

  it('reports a flag the subcommand does not have, with its README line', () => {
    const text = 'intro\nRun `hilo next --url U --blocksize 5 orders`, or `hilo --versoin`.';
    expect(unknownCliFlags('R.md', text, options)).toEqual([
      'R.md:2: `hilo next` has no option --blocksize',
      'R.md:2: `hilo` has no option --versoin',
    ]);
  });

  it('accepts real flags, bracketed optional ones, and prose that merely starts with "hilo"', () => {
    const text = 'hilo next --url URL [--count N] SEGMENT\nhilo checks the --whatever in prose\n`hilo --version`';
    expect(unknownCliFlags('R.md', text, options)).toEqual([]);
  });
});
