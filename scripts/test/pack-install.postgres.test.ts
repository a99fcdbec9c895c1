import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseProblem, describeMysql, describePostgres } from '@hilo/testing';
import { fetchNode, limiter, packPublished, root, run } from './packed.ts';

/** Compiles an app with its own TypeScript; a failure shows the compiler's messages. */
async function tsc(app: string): Promise<void> {
  await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app }).catch(
    (error: Error & { stdout?: string }) => {
      throw new Error(`tsc failed in ${app}:\n${error.stdout ?? String(error)}`);
    },
  );
}

/**
 * The code block that follows the line naming `file` (`` `src/entities.ts`: ``) in `section` of a README: the
 * MikroORM 6 app below runs hilo-mikro-orm's README code itself, so that code cannot drift from what works.
 */
function readmeBlock(readme: string, section: string, file: string): string {
  const text = readFileSync(join(root, readme), 'utf8');
  const start = text.indexOf(`\n## ${section}\n`);
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end === -1 ? undefined : end);
  const match = new RegExp(
    `\`${file.replace(/[.]/g, '\\.')}\`:\\n(?:\\n<!--[^\\n]*-->)?\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n`,
  ).exec(body);
  if (start === -1 || !match?.[1]) throw new Error(`${readme}: no \`${file}\` block under "## ${section}"`);
  return match[1];
}

/** The oldest Node.js every package's `engines` field admits (`^22.17.0 || >=24.0.0` → 22.17.0). */
const FLOOR_NODE = /\^(\d+\.\d+\.\d+)/.exec(
  (JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node,
)![1]!;

/**
 * The newest Node.js LTS release line (26, Active LTS since October 2026), where new apps start: the apps run
 * on it too, so a deprecation or a changed default there shows up here first.
 */
const NEWEST_LTS_NODE = '26.10.0';

/** TypeScript 7, the native compiler (`latest` on npm since July 2026): one app is compiled by it. */
const TYPESCRIPT_7 = '7.0.2';

/**
 * The other server runtimes Node.js apps move to, whose binaries come from the npm registry: the ESM apps run
 * on them too. Neither is in the packages' `engines` field; what runs there is tested. `args` go before the
 * script (Deno needs its permissions granted).
 */
const RUNTIMES = [
  {
    name: 'Bun',
    version: '1.4.5',
    npmPackage: (arch: string) => `@oven/bun-linux-${arch === 'arm64' ? 'aarch64' : 'x64'}`,
    binary: join('bin', 'bun'),
    args: [] as string[],
  },
  {
    name: 'Deno',
    version: '2.9.6',
    npmPackage: (arch: string) => `@deno/linux-${arch === 'arm64' ? 'arm64' : 'x64'}-glibc`,
    binary: 'deno',
    args: ['run', '-A'],
  },
];
const runtimeBins = new Map<string, string>();

/** Fetches each runtime of {@link RUNTIMES} into `work`, all at once (npm's cache keeps the tarballs). */
async function fetchRuntimes(work: string): Promise<void> {
  await Promise.all(
    RUNTIMES.map(async (runtime) => {
      const dir = join(work, `${runtime.name}-${runtime.version}`);
      mkdirSync(dir);
      const { stdout } = await run(
        'npm',
        ['pack', '--silent', `${runtime.npmPackage(process.arch)}@${runtime.version}`],
        { cwd: dir },
      );
      await run('tar', ['xzf', stdout.trim(), '--strip-components=1'], { cwd: dir });
      runtimeBins.set(runtime.name, join(dir, runtime.binary));
    }),
  );
}

/**
 * Runs `script` on every runtime of {@link RUNTIMES}; resolves the last line each printed, parsed as JSON. A
 * warning on stderr fails the run, as on Node.js.
 */
async function runOnOtherRuntimes(
  script: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Array<{ runtime: string; result: unknown }>> {
  const results: Array<{ runtime: string; result: unknown }> = [];
  for (const runtime of RUNTIMES) {
    const { stdout, stderr } = await run(runtimeBins.get(runtime.name)!, [...runtime.args, script], {
      ...options,
      maxBuffer: 16 << 20,
    });
    expect({ runtime: runtime.name, warnings: stderr.split('\n').filter((line) => /warning/i.test(line)) }).toEqual({
      runtime: runtime.name,
      warnings: [],
    });
    results.push({ runtime: runtime.name, result: JSON.parse(stdout.trim().split('\n').pop()!) as unknown });
  }
  return results;
}

/** Every Node.js the apps must work on: the one running the suite, the oldest the engines field admits, and the newest LTS. */
const nodes: Array<{ version: string; bin: string }> = [{ version: process.versions.node, bin: process.execPath }];

/**
 * Runs `args` on every Node.js of {@link nodes}, one after the other; resolves each run's output. A warning on
 * stderr (an experimental feature, a deprecation) fails the run: users would see it at every start.
 */
async function runOnEveryNode(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<Array<{ node: string; stdout: string }>> {
  const outputs: Array<{ node: string; stdout: string }> = [];
  for (const node of nodes) {
    const { stdout, stderr } = await run(node.bin, args, { ...options, maxBuffer: 16 << 20 });
    expect({ node: node.version, warnings: stderr.split('\n').filter((line) => /warning/i.test(line)) }).toEqual({
      node: node.version,
      warnings: [],
    });
    outputs.push({ node: node.version, stdout });
  }
  expect(outputs.map((o) => o.node)).toEqual([process.versions.node, FLOOR_NODE, NEWEST_LTS_NODE]);
  return outputs;
}

// What a user gets from the registry, not what the workspace links: every package packed with `pnpm pack`
// (which rewrites workspace:* to versions), checked by publint and @arethetypeswrong/cli, then installed with
// npm into an app in a temporary folder outside the workspace (so nothing resolves through the monorepo's
// node_modules). Needs the built dist/ (`pnpm test` builds first).
describePostgres('packed packages installed with npm outside the workspace', (db) => {
  let work = '';
  const tarballs: Record<string, string> = {};
  /** Settles when every package is packed into {@link tarballs}. */
  let packing: Promise<void> = Promise.resolve();
  /** What publint and attw found in the tarballs: they check them while the apps install. */
  let linting: Promise<string[]> = Promise.resolve([]);

  // The apps are independent: each is written, installed and compiled in its own folder, at most three at once (npm
  // waits on the registry and the disk much of the time), all started as soon as the packages are packed; each
  // describe's beforeAll waits for its own app, so the apps' tests run while the later apps install.
  const queue = limiter(3);
  const preparations: Array<{ eager: boolean; start: () => Promise<string> }> = [];
  /** Every preparation and every removal of an app's folder, settled (never rejected). */
  const settled: Array<Promise<unknown>> = [];

  /**
   * Registers the preparation of app `name` in the describe block that calls it (`build` writes, installs and
   * compiles it, resolving its folder): the top-level beforeAll starts it when `eager` (its describe runs), else the
   * first call of the returned function does. That function resolves the folder, or rejects with the app's name and
   * the tool's output. Once the block's tests are done, the folder is removed while the other apps go on.
   */
  function prepare(name: string, build: () => Promise<string>, { eager = true } = {}): () => Promise<string> {
    let promise: Promise<string> | undefined;
    const start = (): Promise<string> => {
      if (!promise) {
        promise = queue(async () => {
          await packing;
          return build();
        }).catch((error: unknown) => {
          const { message, stdout } = error as Error & { stdout?: string };
          throw new Error(`preparing the app ${name} failed:\n${message}${stdout ? `\n${stdout}` : ''}`, {
            cause: error,
          });
        });
        settled.push(
          promise.then(
            () => undefined,
            () => undefined,
          ),
        );
      }
      return promise;
    };
    preparations.push({ eager, start });
    afterAll(() => {
      if (promise)
        settled.push(
          promise.then(
            (app) => rm(app, { recursive: true, force: true }),
            () => undefined,
          ),
        );
    });
    return start;
  }

  /** Runs publint and attw on every tarball, all at once; resolves the problems they report. */
  async function lintTarballs(): Promise<string[]> {
    const bin = join(root, 'node_modules', '.bin');
    const problems: string[] = [];
    await Promise.all(
      Object.entries(tarballs).map(async ([name, file]) => {
        for (const [tool, args] of [
          ['publint', ['--strict', file]],
          ['attw', ['--format', 'ascii', file]],
        ] as const) {
          try {
            const { stdout, stderr } = await run(join(bin, tool), [...args]);
            const out = stdout + stderr;
            if (!/All good!|No problems found/.test(out)) problems.push(`${tool} ${name}:\n${out}`);
          } catch (error) {
            const e = error as { stdout?: string; stderr?: string };
            problems.push(`${tool} ${name}:\n${e.stdout ?? ''}${e.stderr ?? String(error)}`);
          }
        }
      }),
    );
    return problems;
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hilo-pack-'));
    const packs = join(work, 'packs');
    mkdirSync(packs);
    // the other Node.js versions and the runtimes download while the packages are packed
    const fetching = Promise.all([
      Promise.all([FLOOR_NODE, NEWEST_LTS_NODE].map((version) => fetchNode(version, join(work, `node-${version}`)))),
      fetchRuntimes(work),
    ]);
    fetching.catch(() => undefined); // awaited below, after the packing
    packing = (async () => {
      Object.assign(tarballs, await packPublished(packs));
    })();
    await packing;
    linting = lintTarballs();
    for (const preparation of preparations) if (preparation.eager) void preparation.start();
    const [bins] = await fetching;
    nodes.push({ version: FLOOR_NODE, bin: bins[0]! }, { version: NEWEST_LTS_NODE, bin: bins[1]! });
  }, 180_000);

  /**
   * A CommonJS TypeScript app as `nest new` sets one up (module commonjs, legacy decorators with metadata) in
   * `work/name`, installed with npm and compiled: `dependencies` at those versions, a hilo package at `'packed'`
   * from its tarball, and `sources` under src/; `beforeCompile` runs between the install and the compile, and
   * `typescript` is the compiler's version (5.9, what ts-jest accepts, unless given).
   */
  async function commonJsApp(
    name: string,
    dependencies: Record<string, string>,
    sources: Record<string, string>,
    options: { beforeCompile?: (app: string) => Promise<void>; typescript?: string } = {},
  ): Promise<string> {
    const app = join(work, name);
    mkdirSync(join(app, 'src'), { recursive: true });
    const resolved = Object.fromEntries(
      Object.entries(dependencies).map(([dep, version]) => [
        dep,
        version === 'packed' ? `file:${tarballs[dep]}` : version,
      ]),
    );
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name,
        private: true,
        type: 'commonjs',
        dependencies: resolved,
        devDependencies: { typescript: options.typescript ?? '5.9.3', '@types/node': '^24.0.0' },
      }),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        // rootDir: TypeScript 7 no longer infers it (error TS5011 without it)
        compilerOptions: {
          module: 'commonjs',
          target: 'ES2023',
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          strict: true,
          skipLibCheck: true,
          esModuleInterop: true,
          rootDir: 'src',
          outDir: 'dist',
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    for (const [file, text] of Object.entries(sources)) writeFileSync(join(app, 'src', file), text);
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
    await options.beforeCompile?.(app);
    await tsc(app);
    return app;
  }

  const otherRuntimes = RUNTIMES.map((r) => `${r.name} ${r.version}`).join(' and ');
  it(
    `runs the apps on Node.js ${FLOOR_NODE}, the oldest the packages' engines field admits, and on ${NEWEST_LTS_NODE}, ` +
      `the newest LTS, too (the ESM apps on ${otherRuntimes} as well)`,
    async () => {
      const versions = await Promise.all(
        nodes.slice(1).map(async (node) => (await run(node.bin, ['--version'])).stdout.trim()),
      );
      expect(versions).toEqual([`v${FLOOR_NODE}`, `v${NEWEST_LTS_NODE}`]);
      for (const runtime of RUNTIMES)
        expect((await run(runtimeBins.get(runtime.name)!, ['--version'])).stdout).toContain(runtime.version);
    },
  );

  afterAll(async () => {
    // no npm still writing into the folder, and the apps' folders removed
    await Promise.all(settled);
    if (work) await rm(work, { recursive: true, force: true });
  }, 300_000);

  it('packs every published package', () => {
    expect(Object.keys(tarballs).sort()).toEqual([
      'hilo-cli',
      'hilo-core',
      'hilo-drizzle',
      'hilo-kysely',
      'hilo-mikro-orm',
      'hilo-prisma',
      'hilo-typeorm',
    ]);
  });

  it('publint and @arethetypeswrong/cli find no problem in any package', async () => {
    expect(await linting).toEqual([]);
  }, 120_000);

  describe('a CommonJS TypeScript app (what `nest new` sets up): TypeORM 0.3, emitDecoratorMetadata, ts-jest', () => {
    let app = '';
    let installOutput = '';

    const ready = prepare('cjs-app', async () => {
      const app = join(work, 'cjs-app');
      mkdirSync(join(app, 'src'), { recursive: true });
      mkdirSync(join(app, 'test'));
      const file = (name: string) => `file:${tarballs[name]}`;
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({
          name: 'cjs-app',
          private: true,
          type: 'commonjs',
          dependencies: {
            'hilo-core': file('hilo-core'),
            'hilo-typeorm': file('hilo-typeorm'),
            'hilo-prisma': file('hilo-prisma'),
            'hilo-mikro-orm': file('hilo-mikro-orm'),
            'hilo-drizzle': file('hilo-drizzle'),
            'hilo-kysely': file('hilo-kysely'),
            'hilo-cli': file('hilo-cli'),
            'drizzle-orm': '0.45.4',
            // Kysely 0.28 ships CommonJS (0.29 is ESM-only): a NestJS app on it can test hilo-kysely with ts-jest
            kysely: '0.28.18',
            typeorm: '0.3.31',
            'reflect-metadata': '0.2.2',
            pg: '^8.23.1',
            '@mikro-orm/core': '7.2.1',
            '@mikro-orm/decorators': '7.2.1',
            '@prisma/client': '7.10.0',
            postgres: '3.4.9',
          },
          devDependencies: {
            typescript: '5.9.3',
            jest: '^30.2.0',
            'ts-jest': '^29.4.0',
            '@types/jest': '^30.0.0',
            '@types/node': '^24.0.0',
          },
        }),
      );
      // tsconfig as `nest new` writes it: module commonjs (node10 resolution), decorators with metadata
      writeFileSync(
        join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'commonjs',
            target: 'ES2023',
            declaration: true,
            emitDecoratorMetadata: true,
            experimentalDecorators: true,
            strict: true,
            skipLibCheck: true,
            esModuleInterop: true,
            outDir: 'dist',
            types: ['node', 'jest'],
          },
          include: ['src', 'test'],
        }),
      );
      writeFileSync(
        join(app, 'src', 'entities.ts'),
        `import { Column, Entity } from 'typeorm';
import { HiLoGeneratedColumn } from 'hilo-typeorm';

@Entity('pack_customers')
export class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column() name!: string; // no explicit type: TypeORM reads it from emitDecoratorMetadata
  @Column({ unique: true, nullable: true }) email?: string;
}
`,
      );
      writeFileSync(
        join(app, 'src', 'main.ts'),
        `import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { hiloOf, withHiLo } from 'hilo-typeorm';
import { Customer } from './entities';

async function main(): Promise<void> {
  const dataSource = withHiLo(
    new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Customer], synchronize: true }),
    { blockSize: 10 },
  );
  await dataSource.initialize();
  try {
    const customers = dataSource.getRepository(Customer);
    const ada = customers.create({ name: 'Ada' });
    const keyAtCreate = ada.id;
    await customers.save(ada);
    const loaded = await customers.findOneByOrFail({ id: keyAtCreate });
    // upsert() of entities from create(): a conflict updates the stored row and keeps its key
    const first = customers.create({ name: 'Grace', email: 'grace@pack.example' });
    await customers.upsert(first, ['email']);
    const second = customers.create({ name: 'Grace H.', email: 'grace@pack.example' });
    await customers.upsert(second, ['email']);
    const stored = await customers.findOneByOrFail({ email: 'grace@pack.example' });
    const upsertKeptKey = stored.name === 'Grace H.' && first.id === stored.id && second.id === stored.id;
    const savesWithoutSelect = hiloOf(dataSource).savesWithoutSelect;
    console.log(JSON.stringify({ keyAtCreate, saved: loaded.name, savesWithoutSelect, upsertKeptKey }));
  } finally {
    await dataSource.destroy();
  }
}
void main().catch((error) => { console.error(error); process.exitCode = 1; });
`,
      );
      // every package and subpath, loaded by ts-jest in Jest's CommonJS runtime
      writeFileSync(
        join(app, 'test', 'imports.test.ts'),
        `import * as core from 'hilo-core';
import * as typeorm from 'hilo-typeorm';
import * as prisma from 'hilo-prisma';
import * as drizzle from 'hilo-drizzle';
import * as kysely from 'hilo-kysely';
import * as cli from 'hilo-cli';

describe('every hilo package under ts-jest (CommonJS)', () => {
  it('loads the packages that have no ESM-only peer', () => {
    expect(typeof core.createHiLoGenerator).toBe('function');
    expect(typeof typeorm.withHiLo).toBe('function');
    expect(typeof drizzle.hiloDrizzle).toBe('function');
    expect(typeof kysely.hiloKysely).toBe('function');
    expect(Object.keys(prisma).length).toBeGreaterThan(0);
    expect(Object.keys(cli).length).toBeGreaterThan(0);
  });
});
`,
      );
      writeFileSync(
        join(app, 'jest.config.js'),
        `module.exports = { testEnvironment: 'node', transform: { '^.+\\\\.ts$': 'ts-jest' }, testRegex: 'test/.*\\\\.test\\\\.ts$' };\n`,
      );
      const { stdout, stderr } = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: app,
        maxBuffer: 16 << 20,
      });
      installOutput = stdout + stderr;
      return app;
    });

    beforeAll(async () => {
      app = await ready();
    }, 600_000);

    it('installs without warnings about bins', () => {
      expect(installOutput).not.toMatch(/Failed to create bin|ENOENT/);
    });

    it('type-checks with module commonjs (node10 resolution finds hilo-mikro-orm/legacy and every package)', async () => {
      writeFileSync(
        join(app, 'src', 'types.ts'),
        `import type { HiLoKey } from 'hilo-mikro-orm/legacy';
import type * as es from 'hilo-mikro-orm/es';
import type * as mikro from 'hilo-mikro-orm';
import type * as prisma from 'hilo-prisma';
import type * as core from 'hilo-core';
import type * as drizzle from 'hilo-drizzle';
import type * as kysely from 'hilo-kysely';
export type Loaded = [typeof HiLoKey, typeof es, typeof mikro, typeof prisma, typeof core, typeof drizzle, typeof kysely];
`,
      );
      const result = await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
        cwd: app,
      }).catch((error: { stdout: string }) => ({ stdout: error.stdout, stderr: 'failed' }));
      expect(result.stdout).toBe('');
    }, 120_000);

    const upsertTitle =
      'gets a key at create() on TypeORM 0.3, saves the row, and upserts without moving a stored key (compiled CommonJS, plain node)';
    it(
      upsertTitle,
      async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'src', 'main.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const result = JSON.parse(stdout.trim()) as {
            keyAtCreate: unknown;
            saved: string;
            savesWithoutSelect: boolean;
            upsertKeptKey: boolean;
          };
          expect(typeof result.keyAtCreate).toBe('number');
          expect(result.saved).toBe('Ada');
          expect(result.upsertKeptKey).toBe(true);
          // the CommonJS build read TypeORM's version, so hilo's save() shortcut is in place
          expect(result.savesWithoutSelect).toBe(true);
        }
      },
      60_000,
    );

    it('requires every package and subpath from plain CommonJS node (require(esm) loads the ESM-only ORM peers)', async () => {
      const script = `for (const m of ['hilo-core','hilo-core/adapter-kit','hilo-typeorm','hilo-prisma','hilo-mikro-orm',
  'hilo-mikro-orm/legacy','hilo-mikro-orm/es','hilo-drizzle','hilo-kysely','hilo-cli']) {
  const x = require(m);
  if (Object.keys(x).length === 0) throw new Error(m + ' is empty');
}
console.log(require.resolve('hilo-core').includes('/dist/cjs/') ? 'cjs' : 'not cjs');`;
      for (const { stdout } of await runOnEveryNode(['-e', script], { cwd: app })) expect(stdout.trim()).toBe('cjs');
    }, 60_000);

    it("gets keys through hilo-core's CommonJS build on the app's postgres.js instance (postgresJsClient)", async () => {
      const script = `const postgres = require('postgres');
const { createHiLo, postgresJsClient } = require('hilo-core');
(async () => {
  const sql = postgres(process.env.DATABASE_URL, { onnotice: () => {} });
  const hilo = createHiLo({ client: postgresJsClient(sql), blockSize: 10 });
  const keys = [await hilo.next('pack_cjs_pjs'), await hilo.next('pack_cjs_pjs')];
  await hilo.close();
  await sql.end();
  console.log(JSON.stringify(keys));
})();`;
      for (const { stdout } of await runOnEveryNode(['-e', script], {
        cwd: app,
        env: { ...process.env, DATABASE_URL: db.url },
      })) {
        const keys = JSON.parse(stdout.trim()) as number[];
        expect(keys).toHaveLength(2);
        expect(new Set(keys).size).toBe(2);
      }
    }, 60_000);

    // hilo-mikro-orm is left out: its peer @mikro-orm/core 7 is ESM-only, and Jest's CommonJS runtime cannot load it
    // ("Must use import to load ES Module") — apps on it need ESM Jest, or Node's --experimental-vm-modules (NestJS
    // below). Plain CommonJS node loads it (require(esm), checked above). So would Kysely 0.29 be; this app has 0.28.
    it(
      'runs a ts-jest test that imports hilo-core, hilo-typeorm, hilo-prisma, hilo-drizzle, hilo-kysely (Kysely 0.28) ' +
        'and hilo-cli',
      async () => {
        const result = await run(process.execPath, [join(app, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci'], {
          cwd: app,
        }).catch((error: { stdout: string; stderr: string }) => ({
          stdout: error.stdout,
          stderr: `FAILED\n${error.stderr}`,
        }));
        expect(result.stderr).not.toMatch(/FAILED/);
        expect(result.stderr).toMatch(/Tests:\s+1 passed/);
      },
      120_000,
    );

    it('runs the CLI through npx hilo', async () => {
      const { stdout } = await run('npx', ['--no-install', 'hilo', '--help'], { cwd: app });
      expect(stdout).toMatch(/init/);
      await run('npx', ['--no-install', 'hilo', 'init', '--url', db.url, 'pack_cli'], { cwd: app });
      const next = await run(
        'npx',
        ['--no-install', 'hilo', 'next', '--unverified', '--url', db.url, '--count', '3', 'pack_cli'],
        {
          cwd: app,
        },
      );
      const keys = next.stdout.trim().split('\n').map(Number);
      expect(keys).toHaveLength(3);
      expect(new Set(keys).size).toBe(3);
    }, 60_000);
  });

  describe('an ESM app ("type": "module"): TypeORM 1.x, MikroORM 7, and hilo-core on postgres.js — on Node.js, Bun and Deno', () => {
    let app = '';

    const ready = prepare('esm-app', async () => {
      const app = join(work, 'esm-app');
      mkdirSync(app);
      const file = (name: string) => `file:${tarballs[name]}`;
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({
          name: 'esm-app',
          private: true,
          type: 'module',
          dependencies: {
            'hilo-core': file('hilo-core'),
            'hilo-typeorm': file('hilo-typeorm'),
            'hilo-mikro-orm': file('hilo-mikro-orm'),
            typeorm: '1.1.1',
            pg: '^8.23.1',
            '@mikro-orm/core': '7.2.1',
            '@mikro-orm/postgresql': '7.2.1',
            postgres: '3.4.9',
          },
        }),
      );
      // hilo-core on the app's postgres.js instance (no `pg` needed by hilo): a key before the insert
      writeFileSync(
        join(app, 'postgres-js.js'),
        `import postgres from 'postgres';
import { createHiLo, postgresJsClient } from 'hilo-core';

const sql = postgres(process.env.DATABASE_URL, { onnotice: () => {} });
await sql\`create table if not exists pack_pjs_authors (id bigint primary key, name text not null)\`;
const hilo = createHiLo({ client: postgresJsClient(sql), blockSize: 10 });
const keyAtCreate = await hilo.next('pack_pjs_authors');
await sql\`insert into pack_pjs_authors values (\${keyAtCreate}, 'Ada')\`;
const [loaded] = await sql\`select name from pack_pjs_authors where id = \${keyAtCreate}\`;
await hilo.close();
await sql.end();
console.log(JSON.stringify({ keyAtCreate, saved: loaded.name }));
`,
      );
      writeFileSync(
        join(app, 'typeorm.js'),
        `import { DataSource, EntitySchema } from 'typeorm';
import { hiloColumn, hiloOf, withHiLo } from 'hilo-typeorm';

const Author = new EntitySchema({
  name: 'Author',
  tableName: 'pack_authors',
  columns: { id: hiloColumn(), name: { type: 'varchar', length: 100 } },
});
const dataSource = withHiLo(
  new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Author], synchronize: true }),
  { blockSize: 10 },
);
await dataSource.initialize();
const authors = dataSource.getRepository(Author);
const ada = authors.create({ name: 'Ada' });
const keyAtCreate = ada.id;
await authors.save(ada);
const loaded = await authors.findOneByOrFail({ id: keyAtCreate });
const savesWithoutSelect = hiloOf(dataSource).savesWithoutSelect;
await dataSource.destroy();
console.log(JSON.stringify({ keyAtCreate, saved: loaded.name, savesWithoutSelect }));
`,
      );
      writeFileSync(
        join(app, 'mikro-orm.js'),
        `import { MikroORM } from '@mikro-orm/postgresql';
import { defineEntity, p } from '@mikro-orm/core';
import { HiLo, hiloKey } from 'hilo-mikro-orm';

const Author = defineEntity({ name: 'Author', tableName: 'pack_mikro_authors', properties: { id: hiloKey(), name: p.string() } });
const orm = await MikroORM.init({ clientUrl: process.env.DATABASE_URL, entities: [Author], extensions: [HiLo] });
await orm.schema.update();
const em = orm.em.fork();
const ada = em.create(Author, { name: 'Ada' });
const keyAtCreate = ada.id;
await em.flush();
const loaded = await orm.em.fork().findOneOrFail(Author, { id: keyAtCreate });
await orm.close();
console.log(JSON.stringify({ keyAtCreate, saved: loaded.name }));
`,
      );
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
      return app;
    });

    beforeAll(async () => {
      app = await ready();
    }, 600_000);

    for (const script of ['typeorm.js', 'mikro-orm.js', 'postgres-js.js']) {
      it(`${script}: a key at create() from the ESM build, saved and read back`, async () => {
        for (const { stdout } of await runOnEveryNode([join(app, script)], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
            keyAtCreate: unknown;
            saved: string;
            savesWithoutSelect?: boolean;
          };
          expect(typeof result.keyAtCreate).toBe('number');
          expect(result.saved).toBe('Ada');
          // the ESM build read TypeORM's version, so hilo's save() shortcut is in place
          if (script === 'typeorm.js') expect(result.savesWithoutSelect).toBe(true);
        }
        for (const { runtime, result } of await runOnOtherRuntimes(join(app, script), {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const { keyAtCreate, saved } = result as { keyAtCreate: unknown; saved: string };
          expect({ runtime, keyAtCreate: typeof keyAtCreate, saved }).toEqual({
            runtime,
            keyAtCreate: 'number',
            saved: 'Ada',
          });
        }
        const resolved = await run(
          process.execPath,
          ['--input-type=module', '-e', "console.log(import.meta.resolve('hilo-core'))"],
          { cwd: app },
        );
        expect(resolved.stdout).not.toContain('/dist/cjs/');
      }, 60_000);
    }
  });
  describe(
    'an ESM Drizzle app on postgres.js with no `pg` installed: ' +
      'hiloDrizzle({ url }) opens its pool with postgres.js — on Node.js, Bun and Deno',
    () => {
      let app = '';

      const ready = prepare('postgres-js-only-app', async () => {
        const app = join(work, 'postgres-js-only-app');
        mkdirSync(app);
        const file = (name: string) => `file:${tarballs[name]}`;
        writeFileSync(
          join(app, 'package.json'),
          JSON.stringify({
            name: 'postgres-js-only-app',
            private: true,
            type: 'module',
            dependencies: {
              'hilo-core': file('hilo-core'),
              'hilo-drizzle': file('hilo-drizzle'),
              'drizzle-orm': '0.45.4',
              postgres: '3.4.9',
            },
          }),
        );
        writeFileSync(
          join(app, 'main.js'),
          `import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { hiloDrizzle } from 'hilo-drizzle';

const sql = postgres(process.env.DATABASE_URL, { onnotice: () => {} });
await sql\`create table if not exists pack_pjs_only (id bigint primary key, name text not null)\`;
const hilo = hiloDrizzle({ url: process.env.DATABASE_URL, blockSize: 10 });
const authors = pgTable('pack_pjs_only', {
  id: bigint('id', { mode: 'number' }).primaryKey().$defaultFn(hilo.key('pack_pjs_only')),
  name: text('name').notNull(),
});
const db = drizzle({ client: sql });
await hilo.warm([authors]);
const [row] = await db.insert(authors).values({ name: 'Ada' }).returning();
await hilo.close();
await sql.end();
let pg = 'installed';
try {
  await import('pg');
} catch {
  pg = 'not installed';
}
console.log(JSON.stringify({ key: row.id, saved: row.name, pg }));
`,
        );
        await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
        return app;
      });

      beforeAll(async () => {
        app = await ready();
      }, 600_000);

      it("stores a row under a key from hilo's own postgres.js pool", async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'main.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const result = JSON.parse(stdout.trim().split('\n').pop()!) as { key: unknown; saved: string; pg: string };
          expect(result).toEqual({ key: expect.any(Number) as unknown, saved: 'Ada', pg: 'not installed' });
        }
        for (const { runtime, result } of await runOnOtherRuntimes(join(app, 'main.js'), {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          expect({ runtime, result }).toEqual({
            runtime,
            result: { key: expect.any(Number) as unknown, saved: 'Ada', pg: 'not installed' },
          });
        }
      }, 60_000);
    },
  );

  describe('a CommonJS TypeScript app on TypeORM 1.x (module commonjs, emitDecoratorMetadata), compiled by TypeScript 7', () => {
    let app = '';

    const ready = prepare('cjs-typeorm1-app', async () => {
      return commonJsApp(
        'cjs-typeorm1-app',
        {
          'hilo-core': 'packed',
          'hilo-typeorm': 'packed',
          typeorm: '1.1.1',
          'reflect-metadata': '0.2.2',
          pg: '^8.23.1',
        },
        {
          'main.ts': `import 'reflect-metadata';
import { Column, DataSource, Entity, ManyToOne, OneToMany } from 'typeorm';
import { HiLoGeneratedColumn, hiloOf, withHiLo } from 'hilo-typeorm';

@Entity('pack1_customers')
export class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column() name!: string;
  @OneToMany(() => Order, (order) => order.customer, { cascade: true }) orders!: Order[];
}

@Entity('pack1_orders')
export class Order {
  @HiLoGeneratedColumn() id!: number;
  @Column() number!: string;
  @ManyToOne(() => Customer, (customer) => customer.orders) customer!: Customer;
}

async function main(): Promise<void> {
  const dataSource = withHiLo(
    new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Customer, Order], synchronize: true }),
    { blockSize: 10 },
  );
  await dataSource.initialize();
  try {
    const customers = dataSource.getRepository(Customer);
    const ada = customers.create({ name: 'Ada', orders: [{ number: 'A-1' }, { number: 'A-2' }] });
    const keysAtCreate = [ada.id, ...ada.orders.map((order) => order.id)];
    await customers.save(ada);
    const loaded = await customers.findOneOrFail({ where: { id: ada.id }, relations: { orders: true } });
    const saved = loaded.orders.map((order) => order.id).sort((a, b) => a - b);
    console.log(JSON.stringify({ keysAtCreate, saved, savesWithoutSelect: hiloOf(dataSource).savesWithoutSelect }));
  } finally {
    await dataSource.destroy();
  }
}
void main().catch((error) => { console.error(error); process.exitCode = 1; });
`,
        },
        // what `npm install typescript` gives since July 2026: the native compiler, decorator metadata included
        { typescript: TYPESCRIPT_7 },
      );
    });

    beforeAll(async () => {
      app = await ready();
    }, 600_000);

    it('gets keys at create() for a customer and its cascaded orders, and saves them under those keys', async () => {
      for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'main.js')], {
        cwd: app,
        env: { ...process.env, DATABASE_URL: db.url },
      })) {
        const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
          keysAtCreate: unknown[];
          saved: number[];
          savesWithoutSelect: boolean;
        };
        expect(result.savesWithoutSelect).toBe(true);
        expect(result.keysAtCreate.every((key) => typeof key === 'number')).toBe(true);
        // the customer's key comes from segment pack1_customers, the orders' from pack1_orders
        expect(new Set(result.keysAtCreate.slice(1)).size).toBe(2);
        expect(result.saved).toEqual((result.keysAtCreate.slice(1) as number[]).sort((a, b) => a - b));
      }
      const resolved = await run(process.execPath, ['-e', "console.log(require.resolve('hilo-typeorm'))"], {
        cwd: app,
      });
      expect(resolved.stdout).toContain('/dist/cjs/');
      const compiler = JSON.parse(readFileSync(join(app, 'node_modules', 'typescript', 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(compiler.version).toBe(TYPESCRIPT_7);
    }, 60_000);
  });

  describe("a Nest 11 app on TypeORM 0.3 with @nestjs/typeorm 11 (the stack most Nest apps run): the README's NestJS module", () => {
    let app = '';

    const ready = prepare('cjs-nest-typeorm03-app', async () => {
      return commonJsApp(
        'cjs-nest-typeorm03-app',
        {
          'hilo-core': 'packed',
          'hilo-typeorm': 'packed',
          typeorm: '0.3.31',
          pg: '^8.23.1',
          '@nestjs/common': '11.2.10',
          '@nestjs/core': '11.2.10',
          '@nestjs/typeorm': '11.0.3',
          'reflect-metadata': '0.2.2',
          rxjs: '7.8.0',
        },
        {
          'entities.ts': `import { Column, Entity, JoinColumn, ManyToOne, OneToMany } from 'typeorm';
import { HiLoGeneratedColumn, hiloKeyTransformer } from 'hilo-typeorm';

@Entity('nest_customers')
export class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column() name!: string;
  @OneToMany(() => Order, (order) => order.customer, { cascade: true }) orders!: Order[];
}

@Entity('nest_orders')
export class Order {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) customerId!: number;
  @ManyToOne(() => Customer, (customer) => customer.orders) @JoinColumn({ name: 'customerId' }) customer?: Customer;
  @Column() reference!: string;
  // as in the README's entities.ts: the module must register OrderItem too, or TypeORM finds no metadata for it
  @OneToMany(() => OrderItem, (item) => item.order, { cascade: true }) items?: OrderItem[];
}

@Entity('nest_order_items')
export class OrderItem {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) orderId!: number;
  @ManyToOne(() => Order, (order) => order.items) @JoinColumn({ name: 'orderId' }) order?: Order;
  @Column() sku!: string;
}
`,
          'shop.module.ts': readmeBlock('packages/typeorm/README.md', 'NestJS', 'src/shop.module.ts'),
          'nest.ts': `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { getRepositoryToken } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { hiloOf } from 'hilo-typeorm';
import { Customer } from './entities';
import { ShopModule } from './shop.module';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ShopModule, { logger: false });
  try {
    const customers = app.get<Repository<Customer>>(getRepositoryToken(Customer));
    // the first thing after start-up, with nothing awaited in between: the keys are already in memory
    const grace = customers.create({ name: 'Grace', orders: [{ reference: 'G-1' }, { reference: 'G-2' }] });
    const keysAtCreate = [grace.id, ...grace.orders.map((order) => order.id)];
    const dataSource = app.get(DataSource);
    await dataSource.synchronize();
    await customers.save(grace);
    const saved = await customers.findOneOrFail({ where: { id: grace.id }, relations: { orders: true } });
    const savedKeys = saved.orders.map((order) => order.id).sort((a, b) => a - b);
    console.log(JSON.stringify({ keysAtCreate, saved: savedKeys, savesWithoutSelect: hiloOf(dataSource).savesWithoutSelect }));
  } finally {
    await app.close(); // destroys the DataSource, which returns the unused keys
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`,
        },
      );
    });

    beforeAll(async () => {
      app = await ready();
    }, 600_000);

    it(
      'gets keys at create() for a customer and its cascaded orders from the injected repository, ' +
        'and saves them under those keys',
      async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'nest.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const result = JSON.parse(stdout.trim().split('\n').pop()!) as {
            keysAtCreate: unknown[];
            saved: number[];
            savesWithoutSelect: boolean;
          };
          expect(result.keysAtCreate).toHaveLength(3);
          expect(result.keysAtCreate.every((key) => typeof key === 'number' && Number.isSafeInteger(key))).toBe(true);
          expect(result.saved).toEqual((result.keysAtCreate.slice(1) as number[]).sort((a, b) => a - b));
          expect(result.savesWithoutSelect).toBe(true);
        }
        const version = (name: string) =>
          (JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
            .version;
        expect(['typeorm', '@nestjs/core', '@nestjs/typeorm'].map(version)).toEqual(['0.3.31', '11.2.10', '11.0.3']);
      },
      60_000,
    );
  });

  describe("a CommonJS TypeScript app on MikroORM 6.6 (its own decorators, knex driver): the README's MikroORM 6 code", () => {
    let app = '';

    const ready = prepare('cjs-mikro-orm6-app', async () => {
      const readme = (name: string) => readmeBlock('packages/mikro-orm/README.md', 'MikroORM 6', `src/${name}`);
      return commonJsApp(
        'cjs-mikro-orm6-app',
        {
          'hilo-core': 'packed',
          'hilo-mikro-orm': 'packed',
          '@mikro-orm/core': '6.6.16',
          '@mikro-orm/postgresql': '6.6.16',
          // the README's NestJS module on MikroORM 6: Nest 11 with @mikro-orm/nestjs 6, as apps written before MikroORM 7 run
          '@mikro-orm/nestjs': '6.1.2',
          '@nestjs/common': '11.2.10',
          '@nestjs/core': '11.2.10',
          'reflect-metadata': '0.2.2',
          rxjs: '7.8.0',
        },
        {
          'entities.ts': readme('entities.ts'),
          'main.ts': readme('main.ts'),
          'shop.module.ts': readme('shop.module.ts'),
          'nest.ts': readme('nest.ts'),
        },
      );
    });

    beforeAll(async () => {
      app = await ready();
    }, 600_000);

    it('gets keys at em.create() for a customer and its cascaded orders, and saves them under those keys', async () => {
      for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'main.js')], {
        cwd: app,
        env: { ...process.env, DATABASE_URL: db.url },
      })) {
        const result = JSON.parse(stdout.trim().split('\n').pop()!) as { keysAtCreate: unknown[]; saved: number[] };
        expect(result.keysAtCreate).toHaveLength(3);
        expect(result.keysAtCreate.every((key) => typeof key === 'number' && Number.isSafeInteger(key))).toBe(true);
        expect(result.saved).toEqual((result.keysAtCreate.slice(1) as number[]).sort((a, b) => a - b));
      }
      const loaded = await run(
        process.execPath,
        ['-e', "console.log(require('@mikro-orm/core/package.json').version, require.resolve('hilo-mikro-orm'))"],
        { cwd: app },
      );
      expect(loaded.stdout).toMatch(/^6\.6\.16 .*\/dist\/cjs\//);
    }, 60_000);

    it(
      'gets keys at em.create() in a Nest 11 app with @mikro-orm/nestjs 6, right after start-up: ' +
        "the README's HiLoReady provider waited",
      async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'nest.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          const result = JSON.parse(stdout.trim().split('\n').pop()!) as { keysAtCreate: unknown[]; saved: number };
          expect(result.keysAtCreate).toHaveLength(2);
          expect(result.keysAtCreate.every((key) => typeof key === 'number' && Number.isSafeInteger(key))).toBe(true);
          expect(result.saved).toBe(1);
        }
        const loaded = await run(
          process.execPath,
          [
            '-e',
            "console.log(require('@mikro-orm/nestjs/package.json').version, require('@nestjs/core/package.json').version)",
          ],
          { cwd: app },
        );
        expect(loaded.stdout.trim()).toBe('6.1.2 11.2.10');
      },
      60_000,
    );
  });

  /** The keyed models of the Prisma apps, on the tables `<prefix>_customers` and `<prefix>_orders`. */
  const prismaModels = (prefix: string): string => `/// @hilo(segment: "${prefix}_customers")
model Customer {
  id     BigInt  @id @default(dbgenerated("hilo_missing_key('${prefix}_customers')"))
  name   String
  orders Order[]
  @@map("${prefix}_customers")
}

/// @hilo(segment: "${prefix}_orders")
model Order {
  id         BigInt   @id @default(dbgenerated("hilo_missing_key('${prefix}_orders')"))
  number     String
  customerId BigInt   @map("customer_id")
  customer   Customer @relation(fields: [customerId], references: [id])
  @@map("${prefix}_orders")
}`;

  /** The statements an app's source runs on `setup`, a connected pg client, to create those tables (no migrate here). */
  const prismaTablesSql = (prefix: string): string =>
    `await setup.query('create table if not exists ${prefix}_customers (id bigint primary key, name text not null)');
await setup.query('create table if not exists ${prefix}_orders (id bigint primary key, number text not null, ' +
  'customer_id bigint not null references ${prefix}_customers (id))');`;

  /** What every Prisma app printed: the reserved keys are the saved ones, and the segments keep keys distinct. */
  function expectShopSaved(result: {
    customerId: string;
    orderIds: string[];
    saved: string[];
    nested: string[];
  }): void {
    expect(result.orderIds).toHaveLength(2);
    expect(result.saved).toEqual(result.orderIds);
    expect(new Set([result.customerId, result.nested[0]]).size).toBe(2);
    expect(new Set([...result.orderIds, result.nested[1]]).size).toBe(3);
  }

  /** `prisma generate` in `app` with its installed CLI (Prisma `line`), offline. */
  async function prismaGenerate(app: string, line: number): Promise<void> {
    // prisma generate needs no schema engine, but the CLI insists on one and would download it: a stub keeps it offline
    const stub = join(app, 'schema-engine-stub');
    writeFileSync(stub, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    // Prisma 6's CLI does not know --no-hints (and then falls back to its Rust engine, which it would download)
    await run(
      process.execPath,
      [
        join(app, 'node_modules', 'prisma', 'build', 'index.js'),
        'generate',
        ...(line >= 7 ? ['--no-hints'] : []),
        '--schema',
        'prisma/schema.prisma',
      ],
      {
        cwd: app,
        // DATABASE_URL: Prisma 6's schema reads it (an app has it in .env); unresolved, its CLI falls back to the Rust engine
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          PRISMA_SCHEMA_ENGINE_BINARY: stub,
          CHECKPOINT_DISABLE: '1',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
        },
        maxBuffer: 16 << 20,
      },
    );
  }

  // Nest 11, and Nest 12 (ESM-only packages, which a CommonJS app loads through Node's require(esm))
  describe.each(['11.2.10', '12.5.1'])(
    'a Nest %s CommonJS app on Prisma 7 (client generated with moduleFormat "cjs"): the README\'s NestJS module',
    (nest) => {
      let app = '';

      const ready = prepare(`cjs-nest${nest.split('.')[0]}-prisma7-app`, async () => {
        return commonJsApp(
          `cjs-nest${nest.split('.')[0]}-prisma7-app`,
          {
            'hilo-core': 'packed',
            'hilo-prisma': 'packed',
            '@prisma/client': '7.10.0',
            '@prisma/adapter-pg': '7.10.1',
            prisma: '7.10.1',
            pg: '^8.23.1',
            '@nestjs/common': nest,
            '@nestjs/core': nest,
            'reflect-metadata': '0.2.2',
            rxjs: '7.8.0',
          },
          {
            'prisma.module.ts': readmeBlock('packages/prisma/README.md', 'NestJS', 'src/prisma.module.ts'),
            'shop.service.ts': `import { Inject, Injectable } from '@nestjs/common';
import { PRISMA, type ExtendedPrisma } from './prisma.module';

@Injectable()
export class ShopService {
  constructor(@Inject(PRISMA) private readonly prisma: ExtendedPrisma) {}

  /** A customer and two orders, wired by keys reserved before anything is written. */
  async placeOrders(name: string): Promise<{ customerId: bigint; orderIds: bigint[] }> {
    const customerId = await this.prisma.customer.nextId();
    const orderIds = await this.prisma.order.reserveIds(2);
    await this.prisma.$transaction([
      this.prisma.customer.create({ data: { id: customerId, name } }),
      this.prisma.order.createMany({ data: orderIds.map((id, n) => ({ id, number: name + '-' + n, customerId })) }),
    ]);
    return { customerId, orderIds };
  }
}
`,
            'nest.ts': `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { PRISMA, PrismaModule, type ExtendedPrisma } from './prisma.module';
import { ShopService } from './shop.service';

@Module({ imports: [PrismaModule], providers: [ShopService] })
class AppModule {}

async function main(): Promise<void> {
  const setup = new Client({ connectionString: process.env['DATABASE_URL'] });
  await setup.connect();
  ${prismaTablesSql('nest_prisma')}
  await setup.end();
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  try {
    const { customerId, orderIds } = await app.get(ShopService).placeOrders('Ada');
    const prisma = app.get<ExtendedPrisma>(PRISMA);
    const nested = await prisma.customer.create({
      data: { name: 'Grace', orders: { create: [{ number: 'G-1' }] } },
      include: { orders: true },
    });
    const saved = await prisma.order.findMany({ where: { customerId }, orderBy: { id: 'asc' } });
    console.log(JSON.stringify({
      orderIds: orderIds.map(String),
      saved: saved.map((order) => String(order.id)),
      nested: [String(nested.id), String(nested.orders[0]!.id)],
      customerId: String(customerId),
    }));
  } finally {
    await app.close(); // closes hilo's pool and the client
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`,
          },
          {
            beforeCompile: async (dir) => {
              mkdirSync(join(dir, 'prisma'));
              writeFileSync(
                join(dir, 'prisma', 'schema.prisma'),
                `generator client {
  provider     = "prisma-client"
  output       = "../src/generated/prisma"
  moduleFormat = "cjs"
}

generator hilo {
  provider = "node ./node_modules/hilo-prisma/dist/generator.js"
  output   = "../src/generated/prisma"
}

datasource db {
  provider = "postgresql"
}

${prismaModels('nest_prisma')}
`,
              );
              await prismaGenerate(dir, 7);
            },
          },
        );
      });

      beforeAll(async () => {
        app = await ready();
      }, 600_000);

      it('reserves keys in an injected service, fills nested creates, saves every row under its key, and shuts down', async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'nest.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          expectShopSaved(JSON.parse(stdout.trim().split('\n').pop()!) as Parameters<typeof expectShopSaved>[0]);
        }
        const loaded = await run(
          process.execPath,
          ['-e', "console.log(require('@nestjs/core/package.json').version)"],
          { cwd: app },
        );
        expect(loaded.stdout.trim()).toBe(nest);
      }, 60_000);
    },
  );

  /**
   * An ESM TypeScript app on Prisma in `work/name`: hilo-core and hilo-prisma from their tarballs and
   * `dependencies`, a schema with the keyed models of {@link prismaModels} on `provider`, generated with hilo's
   * generator and compiled. Its src/main.ts runs `preamble` (which sets up the tables and defines `prisma`, the
   * extended client, and `extra`, more fields for the output), then reserves keys before the insert, fills a
   * nested create, and prints `{ customerId, orderIds, saved, nested, ...extra }` as JSON.
   */
  async function esmPrismaApp(
    name: string,
    options: {
      line: number;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      provider: 'postgresql' | 'mysql';
      generator?: string;
      datasource?: string;
      preamble: string;
    },
  ): Promise<string> {
    const app = join(work, name);
    mkdirSync(join(app, 'prisma'), { recursive: true });
    mkdirSync(join(app, 'src'));
    const dependencies = {
      'hilo-core': `file:${tarballs['hilo-core']}`,
      'hilo-prisma': `file:${tarballs['hilo-prisma']}`,
      ...options.dependencies,
    };
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name,
        private: true,
        type: 'module',
        dependencies,
        devDependencies: { typescript: '5.9.3', '@types/node': '^24.0.0', ...options.devDependencies },
      }),
    );
    writeFileSync(
      join(app, 'prisma', 'schema.prisma'),
      `generator client {
  provider            = "prisma-client"
  output              = "../src/generated/prisma"
  moduleFormat        = "esm"
  importFileExtension = "js"${options.generator ?? ''}
}

generator hilo {
  provider = "node ./node_modules/hilo-prisma/dist/generator.js"
  output   = "../src/generated/prisma"
}

datasource db {
  provider = "${options.provider}"${options.datasource ?? ''}
}

${prismaModels(name.replace(/-/g, '_'))}
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          target: 'ES2023',
          strict: true,
          skipLibCheck: true,
          outDir: 'dist',
          rootDir: 'src',
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    writeFileSync(
      join(app, 'src', 'main.ts'),
      `${options.preamble}
try {
  const customerId = await prisma.customer.nextId();
  const orderIds = await prisma.order.reserveIds(2);
  await prisma.customer.create({ data: { id: customerId, name: 'Ada' } });
  await prisma.order.createMany({ data: orderIds.map((id, n) => ({ id, number: 'A-' + n, customerId })) });
  const nested = await prisma.customer.create({
    data: { name: 'Grace', orders: { create: [{ number: 'G-1' }] } },
    include: { orders: true },
  });
  const saved = await prisma.order.findMany({ where: { customerId }, orderBy: { id: 'asc' } });
  console.log(JSON.stringify({
    customerId: String(customerId),
    orderIds: orderIds.map(String),
    saved: saved.map((o) => String(o.id)),
    nested: [String(nested.id), String(nested.orders[0]!.id)],
    ...extra,
  }));
} finally {
  await prisma.$hilo.close();
  await prisma.$disconnect();
}
`,
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 << 20 });
    await prismaGenerate(app, options.line);
    await tsc(app);
    return app;
  }

  // Prisma 7, and Prisma 6 in the set-up hilo-prisma supports there: the prisma-client generator without the Rust
  // engine (engineType = "client"), and a datasource url that the client with an adapter does not use
  const prismaLines = [
    { line: 7, version: '7.10.1', client: '7.10.0', generator: '', datasource: '' },
    {
      line: 6,
      version: '6.19.3',
      client: '6.19.3',
      generator: '\n  engineType          = "client"',
      datasource: '\n  url      = env("DATABASE_URL")',
    },
  ];
  describe.each(prismaLines)(
    "an ESM Prisma $line app: prisma generate with hilo's generator, keys before the insert",
    ({ line, version, client, generator, datasource }) => {
      let app = '';

      const ready = prepare(`prisma${line}-app`, async () => {
        const prefix = `prisma${line}_app`;
        return esmPrismaApp(`prisma${line}-app`, {
          line,
          dependencies: { '@prisma/client': client, '@prisma/adapter-pg': version, pg: '^8.23.1' },
          devDependencies: { prisma: version, '@types/pg': '^8.23.1' },
          provider: 'postgresql',
          generator,
          datasource,
          preamble: `import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { hilo } from 'hilo-prisma';
import { PrismaClient } from './generated/prisma/client.js';
import { hiloMetadata } from './generated/prisma/hilo.js';

const url = process.env.DATABASE_URL!;
const setup = new pg.Client({ connectionString: url });
await setup.connect();
${prismaTablesSql(prefix)}
await setup.end();

const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) }).$extends(hilo({ metadata: hiloMetadata, url }));
const extra = {};`,
        });
      });

      beforeAll(async () => {
        app = await ready();
      }, 600_000);

      it('reserves keys before the insert, fills nested creates, and saves every row under its key', async () => {
        expect(
          (
            JSON.parse(readFileSync(join(app, 'node_modules', '@prisma', 'client', 'package.json'), 'utf8')) as {
              version: string;
            }
          ).version,
        ).toBe(client);
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'main.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: db.url },
        })) {
          expectShopSaved(JSON.parse(stdout.trim().split('\n').pop()!) as Parameters<typeof expectShopSaved>[0]);
        }
      }, 60_000);
    },
  );

  // A Prisma 7 app on MariaDB through @prisma/adapter-mariadb, which installs the `mariadb` connector, pruned as a
  // slim production image is (`--omit=dev --omit=optional`: npm keeps the Prisma CLI, an optional peer of
  // @prisma/client, unless optional packages go too): the CLI and the mysql2 it depends on are gone, so hilo's own
  // pool (the `url` option) is opened with that connector (hilo-core's connect()).
  describeMysql(
    'a slim production install of an ESM Prisma 7 app on MariaDB (@prisma/adapter-mariadb, no mysql2): ' +
      "hilo's pool on the mariadb connector",
    (mariadbDb) => {
      let app = '';

      const ready = prepare(
        'prisma7-mariadb-app',
        async () => {
          const app = await esmPrismaApp('prisma7-mariadb-app', {
            line: 7,
            dependencies: { '@prisma/client': '7.10.0', '@prisma/adapter-mariadb': '7.10.0' },
            devDependencies: { prisma: '7.10.1' },
            provider: 'mysql',
            preamble: `import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { hilo } from 'hilo-prisma';
import { PrismaClient } from './generated/prisma/client.js';
import { hiloMetadata } from './generated/prisma/hilo.js';

const url = process.env.DATABASE_URL!;
const base = new PrismaClient({ adapter: new PrismaMariaDb(url.replace(/^mysql:/, 'mariadb:')) });
await base.$executeRawUnsafe(
  'create table if not exists prisma7_mariadb_app_customers (id bigint primary key, name varchar(100) not null)',
);
await base.$executeRawUnsafe(
  'create table if not exists prisma7_mariadb_app_orders (id bigint primary key, number varchar(20) not null, ' +
    'customer_id bigint not null references prisma7_mariadb_app_customers (id))',
);
const prisma = base.$extends(hilo({ metadata: hiloMetadata, url }));
const extra = { mysql2: await import('mysql2').then(() => 'installed', () => 'not installed') };`,
          });
          // the Prisma CLI brings mysql2 along; the pruned install has neither
          await run('npm', ['prune', '--omit=dev', '--omit=optional', '--no-audit', '--no-fund'], {
            cwd: app,
            maxBuffer: 16 << 20,
          });
          return app;
        },
        { eager: databaseProblem('mysql') === undefined },
      );

      beforeAll(async () => {
        app = await ready();
      }, 600_000);

      it('reserves keys before the insert, fills nested creates, and saves every row under its key', async () => {
        for (const { stdout } of await runOnEveryNode([join(app, 'dist', 'main.js')], {
          cwd: app,
          env: { ...process.env, DATABASE_URL: mariadbDb.url },
        })) {
          const result = JSON.parse(stdout.trim().split('\n').pop()!) as Parameters<typeof expectShopSaved>[0] & {
            mysql2: string;
          };
          expect(result.mysql2).toBe('not installed');
          expectShopSaved(result);
        }
      }, 60_000);
    },
  );
});
