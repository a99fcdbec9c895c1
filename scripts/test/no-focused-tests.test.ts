// `./pnpm lint` fails on a focused test (eslint.config.js, jest/no-focused-tests): a committed `it.only` would let CI
// pass while the rest of its file never runs. The repository's own ESLint config lints a test file's text; the file
// is not on disk, so it is given TypeScript's default project (the one change to the config made here).
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const file = 'scripts/test/focused-fixture.test.ts';

async function lint(text: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [
      {
        files: [file],
        languageOptions: {
          parserOptions: { projectService: { allowDefaultProject: [file], defaultProject: 'scripts/tsconfig.json' } },
        },
      },
    ],
  });
  const [result] = await eslint.lintText(text, { filePath: file });
  return (result?.messages ?? []).map((m) => `${m.line}: ${m.ruleId ?? 'parser'}: ${m.message}`);
}

describe('no focused tests', () => {
  it('fails lint on it.only, test.only, describe.only, fit and fdescribe, and not on plain tests', async () => {
    const messages = await lint(
      [
        "describe('a suite', () => {",
        "  it.only('one', () => undefined);",
        "  fit('two', () => undefined);",
        "  test.only('three', () => undefined);",
        "  it('four', () => undefined);",
        '});',
        "describe.only('focused', () => undefined);",
        "fdescribe('also focused', () => undefined);",
        "describe.skip('skipped is not focused', () => undefined);",
        '',
      ].join('\n'),
    );
    expect(messages).toEqual([2, 3, 4, 7, 8].map((line) => `${line}: jest/no-focused-tests: Unexpected focused test`));
  }, 60_000);
});
