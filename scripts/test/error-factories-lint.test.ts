// `./pnpm lint` fails on `new HiLoConfigurationError(` in a package's src outside its error-messages.ts (and
// hilo-core's errors.ts), and in the adapters and the CLI on the other error types too: messages come from
// factories, one per mistake (eslint.config.js, no-restricted-syntax).
// The repository's own ESLint config lints a file's text, given TypeScript's default project for a file not on disk.
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = 'packages/typeorm/src/inline-error-fixture.ts';

async function lint(text: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    overrideConfig: [
      {
        files: [fixture],
        languageOptions: {
          parserOptions: { projectService: { allowDefaultProject: [fixture], defaultProject: 'tsconfig.base.json' } },
        },
      },
    ],
  });
  const [result] = await eslint.lintText(text, { filePath });
  return (result?.messages ?? []).map((m) => `${m.line}: ${m.ruleId ?? 'parser'}`);
}

const source = [
  "import { HiLoConfigurationError, HiLoMismatchError } from 'hilo-core';",
  "export const refused = (): HiLoConfigurationError => new HiLoConfigurationError('no');",
  "export const invalid = (): HiLoConfigurationError => HiLoConfigurationError.invalidOption('a', 'b', 1);",
  "export const mismatch = (): HiLoMismatchError => new HiLoMismatchError('no');",
  '',
].join('\n');

describe('error factories lint rule', () => {
  it('fails lint on new HiLoConfigurationError( and other inline errors in an adapter, not on the static factories', async () => {
    expect(await lint(source, fixture)).toEqual(['2: no-restricted-syntax', '4: no-restricted-syntax']);
  }, 60_000);

  it('in hilo-core, where its other errors are still built inline, refuses only new HiLoConfigurationError(', async () => {
    expect(await lint(source, 'packages/core/src/presets/shape.ts')).toEqual(['2: no-restricted-syntax']);
  }, 60_000);

  it("allows it in a package's error-messages.ts", async () => {
    expect(await lint(source, 'packages/typeorm/src/error-messages.ts')).toEqual([]);
  }, 60_000);
});
