// Why typescript-eslint and not Biome: hilo's hard bugs are about promises and concurrency, and the rules that catch
// them (no-floating-promises, no-misused-promises, await-thenable, switch-exhaustiveness-check) need the type checker.
// typescript-eslint runs them with TypeScript itself, through the tsconfig.json nearest each file (projectService),
// so a rule sees the types `pnpm typecheck` sees; Biome infers types on its own and covers only part of this.
// Formatting is Prettier's (.prettierrc.json); the only layout rule here is max-len at 140, for the strings, comments
// and template literals Prettier does not break.
// `pnpm lint` caches results per file content (node_modules/.cache/eslint): a type change in one file does not re-lint
// the files that use it, so delete that folder for a full run; CI runs from a clean clone, without a cache.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

/** The restrictions both error-message blocks below share: a configuration error comes from a factory… */
const inlineConfigurationError = {
  selector: "NewExpression[callee.name='HiLoConfigurationError']",
  message:
    "Build a HiLoConfigurationError with a factory of the package's src/error-messages.ts " +
    '(one per mistake, named after it), not inline.',
};

/**
 * …and so does every other error type that takes a message. Not the ones whose constructor builds its own message
 * from data (HiLoNotReadyError, HiLoStoreBehindError, HiLoKeyLimitError) or has none (HiLoClosedError).
 */
const inlineMessageError = {
  selector:
    'NewExpression[callee.name=' +
    '/^HiLo(Source|SourceUnavailable|Overflow|Exhausted|Mismatch|Timeout|SynchronousStandby|ServerUnconfirmed)Error$/]',
  message: "Build this error with a factory of the package's src/error-messages.ts, not inline.",
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      '**/generated/',
      '.tools/',
      '.readme-check/',
      '.readme-run-*/',
      'interop/',
      'bench/results/',
      'coverage/',
      'examples/prisma/src/readme-check-*.ts',
      'packages/*/src/**/*.js',
      'packages/*/src/**/*.d.ts',
    ],
  },
  {
    files: ['**/*.{ts,mts,cts}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: {
          // TypeScript files no tsconfig.json includes: the Jest configs (typed by jest's own types).
          allowDefaultProject: ['jest.config.ts'],
          defaultProject: 'tsconfig.base.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The promise rules are the reason for this linter; recommendedTypeChecked has them, stated here to be sure.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // A `default:` does not count as handling a union's members: a new event or dialect must be a decision.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      // `_name` marks a parameter or binding kept on purpose (a callback's position, a rest sibling).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // A driver's rejection reason is passed on as it came (typed `unknown`); hilo's own are HiLoErrors.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      // Off: an `async` function without `await` is how hilo turns a synchronous throw into a rejection and keeps a
      // Promise-returning contract; no-floating-promises and await-thenable catch the real promise mistakes.
      '@typescript-eslint/require-await': 'off',
      // Off: hilo's Dialect and SqlExecutor objects are method-shorthand closures that never read `this`, and the ORM
      // patches keep the original method to call it with `.call(this, …)`; every such site would need a disable.
      '@typescript-eslint/unbound-method': 'off',
      // One source compiles to ESM and CommonJS, where a line may be an error in one build only: @ts-ignore, with why.
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-ignore': 'allow-with-description' }],
    },
  },
  {
    // hilo-mikro-orm's TC39-decorator tests have their own tsconfig (the package's has legacy decorators on).
    files: ['packages/mikro-orm/test/**/*.es-decorators.ts', 'packages/mikro-orm/test/**/*.es-decorators.test.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './packages/mikro-orm/tsconfig.es-decorators.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    // Tests drive three databases' ORMs and drivers through one harness, and reach into internals on purpose,
    // through `any`; the unsafe-any rules stay on for the code we ship.
    files: ['packages/*/test/**', 'scripts/test/**', 'examples/*/test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // Error messages come from factories, one per mistake (issue #48, MikroORM's style): each package's
    // src/error-messages.ts holds them, named after the mistake, so a message is written once and the code that
    // throws reads `throw configurationErrors.notInstalled()`. errors.ts keeps its own (`invalidOption`,
    // `checkOptionNames`). scripts/test/error-factories-lint.test.ts proves the rule fires.
    files: ['packages/*/src/**/*.{ts,mts,cts}'],
    ignores: ['packages/*/src/error-messages.ts', 'packages/core/src/errors.ts'],
    rules: {
      'no-restricted-syntax': ['error', inlineConfigurationError, inlineMessageError],
    },
  },
  {
    // The adapters and the CLI build no HiLoKeyLimitError either: hilo-core's engine does. The rule's options
    // replace the block's above, so all three are here.
    files: ['packages/*/src/**/*.{ts,mts,cts}'],
    ignores: ['packages/core/**', 'packages/*/src/error-messages.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        inlineConfigurationError,
        inlineMessageError,
        {
          selector: "NewExpression[callee.name='HiLoKeyLimitError']",
          message: inlineMessageError.message,
        },
      ],
    },
  },
  {
    // A focused test (`it.only`, `describe.only`, `fit`, `fdescribe`, `test.only`) silently skips the rest of its file:
    // committed, it would make CI pass without running them. Everywhere, since @hilo/testing's suites call `it` too.
    // scripts/test/no-focused-tests.test.ts proves the rule fires.
    plugins: { jest },
    rules: { 'jest/no-focused-tests': 'error' },
  },
  {
    plugins: { '@stylistic': stylistic },
    rules: {
      // Prettier wraps code at 120; this catches what it leaves long (strings, comments, template literals).
      '@stylistic/max-len': ['error', { code: 140, tabWidth: 2 }],
    },
  },
);
