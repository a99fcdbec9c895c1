// examples/nestjs as a user has it: its files copied into a folder outside the workspace and installed with npm,
// the hilo packages from packed tarballs. The app is shaped as `nest new` (Nest CLI 11) makes one: CommonJS
// TypeScript, ts-jest, e2e specs run by `jest --config ./test/jest-e2e.json`. It runs on what that template installs,
// Nest 11, and on what `npm install @nestjs/typeorm typeorm` adds to it today: npm's `latest` of each, looked up when
// the test runs (@nestjs/typeorm 12, ESM-only, and TypeORM 1.x when this was written), and @mikro-orm/nestjs 7 on
// MikroORM 7 (ESM-only too). The README's NestJS sections say what such an app needs; this file proves each line.
// (The workspace runs the same files on Nest 12: scripts/test/nestjs-example.postgres.test.ts.)
// Its specs drive the app over HTTP against a database of the test server, creating entities whose keys are known
// before they are saved.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describePostgres } from '@hilo/testing';
import { fetchNode, packPublished, root, run } from './packed.ts';

const example = join(root, 'examples', 'nestjs');

/** The oldest Node.js every package's `engines` field admits (`^22.17.0 || >=24.0.0` → 22.17.0). */
const NODE_22 = /\^(\d+\.\d+\.\d+)/.exec(
  (JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node,
)![1]!;

/** What Nest CLI 11's `nest new` installs (Nest 11); `npm install @nestjs/typeorm typeorm` then adds npm's `latest`. */
const NEST_11 = {
  '@nestjs/common': '11.2.10',
  '@nestjs/core': '11.2.10',
  '@nestjs/platform-express': '11.2.10',
  '@nestjs/typeorm': 'latest',
  typeorm: 'latest',
};

/** Starts the compiled app's AppModule (both ORM modules on the database) with `node`, then closes it. */
const START_COMPILED_APP = `
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { AppModule } = require('./dist/src/app.module.js');
NestFactory.createApplicationContext(AppModule, { logger: false }).then(async (app) => {
  await app.close();
  console.log('started and closed; @nestjs/typeorm loaded as ' + (typeof require('@nestjs/typeorm').TypeOrmModule));
});
`;

/** The tsconfig.json Nest CLI 11's `nest new` writes (ts-jest compiles the specs with it). */
const NEST_CLI_11_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    resolvePackageJsonExports: true,
    esModuleInterop: true,
    isolatedModules: true,
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2023',
    sourceMap: true,
    outDir: './dist',
    baseUrl: './',
    incremental: true,
    skipLibCheck: true,
    strictNullChecks: true,
    forceConsistentCasingInFileNames: true,
    noImplicitAny: false,
    strictBindCallApply: false,
    noFallthroughCasesInSwitch: false,
  },
};

interface Manifest {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

describePostgres('examples/nestjs as a `nest new` app on Nest 11, the packed packages installed with npm', (db) => {
  let work = '';
  let app = '';
  let node22 = '';
  /** npm's `latest` of @nestjs/typeorm and of typeorm, as `npm install NAME` resolves them today. */
  const latest: Record<string, string> = {};

  /** Runs `command` in the app; resolves its exit code and output, whatever the code. */
  const inApp = async (
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ code: number; out: string }> =>
    run(command, args, { cwd: app, env: { ...process.env, DATABASE_URL: db.url, ...env }, maxBuffer: 16 << 20 }).then(
      ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
      (error: Error & { code?: number; stdout?: string; stderr?: string }) => ({
        code: typeof error.code === 'number' ? error.code : -1,
        out: `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
      }),
    );

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hilo-nest-app-'));
    const [tarballs, node, ...versions] = await Promise.all([
      packPublished(join(work, 'packs'), ['core', 'typeorm', 'mikro-orm']),
      fetchNode(NODE_22, join(work, `node-${NODE_22}`)),
      ...['@nestjs/typeorm', 'typeorm'].map((name) => run('npm', ['view', name, 'dist-tags.latest'])),
    ]);
    node22 = node;
    latest['@nestjs/typeorm'] = versions[0]!.stdout.trim();
    latest['typeorm'] = versions[1]!.stdout.trim();
    app = join(work, 'app');
    for (const path of ['src', 'test']) cpSync(join(example, path), join(app, path), { recursive: true });
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(NEST_CLI_11_TSCONFIG));
    const manifest = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) as Manifest;
    const dependencies: Record<string, string> = { ...manifest.dependencies, ...NEST_11 };
    for (const name of ['hilo-core', 'hilo-typeorm', 'hilo-mikro-orm']) dependencies[name] = `file:${tarballs[name]}`;
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'nest-app',
        private: true,
        scripts: manifest.scripts,
        dependencies,
        devDependencies: { ...manifest.devDependencies, '@nestjs/testing': '11.2.6' },
      }),
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('installs Nest 11 with npm’s latest @nestjs/typeorm (ESM-only) and TypeORM, @mikro-orm/nestjs 7 and MikroORM 7', async () => {
    const { out } = await inApp(process.execPath, [
      '-p',
      "['@nestjs/core', '@nestjs/typeorm', 'typeorm', '@mikro-orm/nestjs', '@mikro-orm/core', 'hilo-typeorm']" +
        ".map((name) => JSON.parse(require('fs').readFileSync('node_modules/' + name + '/package.json', 'utf8')).version).join(' ')" +
        " + ' ' + JSON.parse(require('fs').readFileSync('node_modules/@nestjs/typeorm/package.json', 'utf8')).type",
    ]);
    const [nest, nestTypeorm, typeorm, mikroNest, mikro, hilo, type] = out.trim().split(' ');
    expect({ nest, nestTypeorm, typeorm, type }).toEqual({
      nest: '11.2.10',
      nestTypeorm: latest['@nestjs/typeorm'],
      typeorm: latest['typeorm'],
      // the README's NestJS sections describe an ESM-only @nestjs/typeorm: a `latest` that is not fails here first
      type: 'module',
    });
    expect([mikroNest, mikro, hilo]).toEqual([
      expect.stringMatching(/^7\.\d+\.\d+$/),
      expect.stringMatching(/^7\.2\.\d+$/),
      expect.stringMatching(/^\d+\.\d+\.\d+$/),
    ]);
  });

  it('the compiled CommonJS app starts both modules with `node` (require() of ES modules), on Node.js 24 and 22', async () => {
    const tsc = await inApp(process.execPath, [
      join(app, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.json',
    ]);
    expect(tsc).toEqual({ code: 0, out: '' });
    for (const node of [process.execPath, node22]) {
      const started = await inApp(node, ['-e', START_COMPILED_APP]);
      expect({ node, ...started }).toEqual({
        node,
        code: 0,
        out: 'started and closed; @nestjs/typeorm loaded as function\n',
      });
    }
  }, 120_000);

  it(
    'the template’s `jest --config ./test/jest-e2e.json`: neither spec loads, both fail with "Must use import to ' +
      'load ES Module" (@nestjs/typeorm 12, MikroORM 7), as the READMEs say',
    async () => {
      const { code, out } = await inApp(process.execPath, [
        join(app, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--config',
        './test/jest-e2e.json',
        '--ci',
      ]);
      expect(code).toBe(1);
      expect(out).toMatch(/FAIL test\/typeorm\.e2e-spec\.ts/);
      expect(out).toMatch(/FAIL test\/mikro-orm\.e2e-spec\.ts/);
      expect(out).toMatch(/Must use import to load ES Module: \S*node_modules\/@nestjs\/typeorm\//);
      expect(out).toMatch(/Must use import to load ES Module: \S*node_modules\/@mikro-orm\//);
    },
    120_000,
  );

  it('`npm run test:e2e` (Jest under --experimental-vm-modules): both modules pass over HTTP on the database', async () => {
    expect((JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as Manifest).scripts['test:e2e']).toBe(
      'node --experimental-vm-modules node_modules/jest/bin/jest.js --config ./test/jest-e2e.json',
    );
    const { code, out } = await inApp('npm', ['run', 'test:e2e', '--', '--ci']);
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    expect(out).toMatch(/PASS test\/typeorm\.e2e-spec\.ts/);
    expect(out).toMatch(/PASS test\/mikro-orm\.e2e-spec\.ts/);
    expect(out).toMatch(/Tests:\s+4 passed, 4 total/);
  }, 120_000);

  it(`on Node.js ${NODE_22} the flag does not help: neither spec loads its ESM-only module (the READMEs say so)`, async () => {
    const { code, out } = await inApp('npm', ['run', 'test:e2e', '--', '--ci'], {
      PATH: `${dirname(node22)}:${process.env['PATH'] ?? ''}`,
    });
    expect(code).not.toBe(0);
    expect(out).toMatch(/FAIL test\/typeorm\.e2e-spec\.ts/);
    expect(out).toMatch(/FAIL test\/mikro-orm\.e2e-spec\.ts/);
    expect(out).toMatch(/Must use import to load ES Module: \S*node_modules\/@nestjs\/typeorm\//);
  }, 120_000);

  it('with `npm install @nestjs/typeorm@11` (CommonJS) the template’s own `jest` passes the TypeORM spec', async () => {
    const installed = await inApp('npm', [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '@nestjs/typeorm@11',
    ]);
    expect(installed.code).toBe(0);
    const { code, out } = await inApp(process.execPath, [
      join(app, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--config',
      './test/jest-e2e.json',
      '--ci',
      'test/typeorm',
    ]);
    expect({ code, out: code === 0 ? '' : out }).toEqual({ code: 0, out: '' });
    expect(out).toMatch(/PASS test\/typeorm\.e2e-spec\.ts/);
  }, 180_000);
});

/**
 * What Nest CLI 12's `nest new` (12.0.8, `--package-manager npm`) writes instead: an ES module app (`"type": "module"`)
 * whose e2e specs Vitest runs (`vitest.config.e2e.ts`), on Nest 12. Its files as generated, but for the versions,
 * pinned to what that run installed.
 */
const NEST_CLI_12 = {
  manifest: {
    type: 'module',
    scripts: { 'test:e2e': 'vitest run --config ./vitest.config.e2e.ts' },
    devDependencies: {
      '@nestjs/testing': '12.1.1',
      '@types/node': '^24.0.0',
      '@types/supertest': '^7.0.0',
      supertest: '7.3.2',
      typescript: '6.0.3',
      'vite-tsconfig-paths': '5.1.4',
      vitest: '4.1.12',
    },
  },
  tsconfig: {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      resolvePackageJsonExports: true,
      esModuleInterop: true,
      isolatedModules: true,
      declaration: true,
      removeComments: true,
      emitDecoratorMetadata: true,
      experimentalDecorators: true,
      allowSyntheticDefaultImports: true,
      target: 'ES2023',
      sourceMap: true,
      outDir: './dist',
      rootDir: '.',
      incremental: true,
      skipLibCheck: true,
      strict: true,
      strictPropertyInitialization: false,
      types: ['vitest/globals', 'node'],
    },
  },
  vitestConfig: `import { defineConfig } from 'vitest/config';
import tsconfigPaths from 'vite-tsconfig-paths';

export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    globals: true,
    root: './',
    include: ['**/*.e2e-spec.ts'],
  },
});
`,
};

describePostgres('examples/nestjs as Nest CLI 12 makes an app: ESM and Vitest, Nest 12, the packed packages', (db) => {
  let work = '';
  let app = '';

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hilo-nest12-app-'));
    const tarballs = await packPublished(join(work, 'packs'), ['core', 'typeorm', 'mikro-orm']);
    app = join(work, 'app');
    for (const path of ['src', 'test']) cpSync(join(example, path), join(app, path), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) as Manifest;
    const dependencies: Record<string, string> = { ...manifest.dependencies };
    for (const name of ['hilo-core', 'hilo-typeorm', 'hilo-mikro-orm']) dependencies[name] = `file:${tarballs[name]}`;
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'nest12-app', private: true, ...NEST_CLI_12.manifest, dependencies }),
    );
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(NEST_CLI_12.tsconfig));
    writeFileSync(join(app, 'vitest.config.e2e.ts'), NEST_CLI_12.vitestConfig);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
  }, 300_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  // the specs' first test of each file checks the CommonJS set-up of the Jest app above; here, the HTTP ones run
  it('`npm run test:e2e` (Vitest, no flags): both modules pass over HTTP on the database', async () => {
    const { stdout, stderr } = await run('npm', ['run', 'test:e2e', '--', '-t', 'POST'], {
      cwd: app,
      env: { ...process.env, DATABASE_URL: db.url, NO_COLOR: '1' },
      maxBuffer: 16 << 20,
    }).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(`test:e2e failed:\n${error.stdout ?? ''}${error.stderr ?? String(error)}`);
    });
    const out = stdout + stderr;
    expect(out).toMatch(/✓ test\/typeorm\.e2e-spec\.ts/);
    expect(out).toMatch(/✓ test\/mikro-orm\.e2e-spec\.ts/);
    expect(out).toMatch(/Tests\s+2 passed \| 2 skipped \(4\)/);
    const versions = await run(
      process.execPath,
      [
        '-p',
        "['@nestjs/core', '@nestjs/typeorm', 'typeorm', '@mikro-orm/core', 'vitest']" +
          ".map((name) => JSON.parse(require('fs').readFileSync('node_modules/' + name + '/package.json', 'utf8')).version).join(' ')",
      ],
      { cwd: app },
    );
    expect(versions.stdout.trim()).toMatch(/^12\.\d+\.\d+ 12\.\d+\.\d+ 1\.\d+\.\d+ 7\.2\.\d+ 4\.\d+\.\d+$/);
  }, 120_000);
});
