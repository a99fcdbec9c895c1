// `./pnpm lint` fails on `new HiLoConfigurationError(`, and on every other error type that takes a message, in a
// package's src outside its error-messages.ts (and hilo-core's errors.ts); in the adapters and the CLI on
// `new HiLoKeyLimitError(` too. Messages come from factories, one per mistake (eslint.config.js, no-restricted-syntax).
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
  "import { HiLoConfigurationError, HiLoKeyLimitError, HiLoMismatchError, HiLoNotReadyError } from 'hilo-core';",
  "import { HiLoSynchronousStandbyError } from 'hilo-core';",
  "export const refused = (): HiLoConfigurationError => new HiLoConfigurationError('no');",
  "export const invalid = (): HiLoConfigurationError => HiLoConfigurationError.invalidOption('a', 'b', 1);",
  "export const mismatch = (): HiLoMismatchError => new HiLoMismatchError('no');",
  "export const standby = (): HiLoSynchronousStandbyError => new HiLoSynchronousStandbyError('no', { retryable: true });",
  "export const notReady = (): HiLoNotReadyError => new HiLoNotReadyError('orders');",
  "export const limit = (): HiLoKeyLimitError => new HiLoKeyLimitError('orders', 1n, 2n);",
  '',
].join('\n');

describe('error factories lint rule', () => {
  it('fails lint on new HiLoConfigurationError( and other inline errors in an adapter, not on the static factories', async () => {
    expect(await lint(source, fixture)).toEqual([
      '3: no-restricted-syntax',
      '5: no-restricted-syntax',
      '6: no-restricted-syntax',
      '8: no-restricted-syntax',
    ]);
  }, 60_000);

  it('in hilo-core refuses every error type built with a message, not those that build their own from data', async () => {
    expect(await lint(source, 'packages/core/src/presets/shape.ts')).toEqual([
      '3: no-restricted-syntax',
      '5: no-restricted-syntax',
      '6: no-restricted-syntax',
    ]);
  }, 60_000);

  it("allows them in a package's error-messages.ts", async () => {
    expect(await lint(source, 'packages/typeorm/src/error-messages.ts')).toEqual([]);
    expect(await lint(source, 'packages/core/src/error-messages.ts')).toEqual([]);
  }, 60_000);
});
