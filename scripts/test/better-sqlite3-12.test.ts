// better-sqlite3 12 is in hilo-core's peer range because TypeORM (0.3.31 and 1.x) declares `better-sqlite3` ^12:
// a TypeORM app on SQLite gets 12 from plain `npm install`, and a range without 12 made that install fail with
// ERESOLVE (issue #41; scripts/test/npm-peers.test.ts). better-sqlite3 12 aborts Node.js 24.19 and later when a
// statement is garbage-collected (`Assertion failed: (env) != nullptr`, nodejs/node#65446) in any program, with hilo
// or without, so the Jest projects, which run on Node 24, cannot run it. This file runs hilo on it under Node.js
// 22.17, the oldest the packages' engines field admits: the packed packages installed with npm into an app
// outside the workspace, better-sqlite3 compiled there against Node 22's headers as npm builds it for a user.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fetchNode, limiter, packPublished, root, run } from './packed.ts';

/** The lowest release of better-sqlite3 12 that hilo-core's peer range admits (`^12.x.y || >=13`). */
const LOWEST_12 = /\^(12\.\d+\.\d+)/.exec(
  (
    JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>;
    }
  ).peerDependencies['better-sqlite3']!,
)![1]!;

/** The oldest Node.js every package's `engines` field admits (`^22.17.0 || >=24.0.0` → 22.17.0). */
const NODE_22 = /\^(\d+\.\d+\.\d+)/.exec(
  (JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as { engines: { node: string } })
    .engines.node,
)![1]!;

describe(`better-sqlite3 ${LOWEST_12} under Node.js ${NODE_22}, installed with npm beside TypeORM 1.x`, () => {
  let work = '';
  let app = '';
  let node22 = '';

  /** Runs `script` of the app on Node 22 with `args`; resolves its last line of output, parsed. */
  const runOnNode22 = async (script: string, args: string[] = []): Promise<unknown> => {
    const { stdout } = await run(node22, ['--expose-gc', script, ...args], { cwd: app, maxBuffer: 16 << 20 });
    return JSON.parse(stdout.trim().split('\n').pop()!) as unknown;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hilo-bsqlite12-'));
    const [tarballs, nodeBin] = await Promise.all([
      packPublished(join(work, 'packs'), ['core', 'typeorm']),
      fetchNode(NODE_22, join(work, `node-${NODE_22}`)),
    ]);
    node22 = nodeBin;
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'commonjs' }));
    // npm and node-gyp run on Node 22 and compile against its headers (the registry's Node.js package has them),
    // as on a user's machine with Node 22; no prebuilt binary is fetched from outside the npm registry
    const env = {
      ...process.env,
      PATH: `${dirname(node22)}:${process.env['PATH'] ?? ''}`,
      npm_config_nodedir: dirname(dirname(node22)),
    };
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        tarballs['hilo-core']!,
        tarballs['hilo-typeorm']!,
        'typeorm@1',
        `better-sqlite3@${LOWEST_12}`,
      ],
      { cwd: app, env, maxBuffer: 16 << 20 },
    );
  }, 600_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`installs better-sqlite3 ${LOWEST_12} without flags and loads it on Node.js ${NODE_22}`, async () => {
    const { stdout } = await run(
      node22,
      [
        '-p',
        "JSON.stringify([process.version, require('better-sqlite3/package.json').version, " +
          "new (require('better-sqlite3'))(':memory:').prepare('select 1 as one').get().one])",
      ],
      { cwd: app },
    );
    expect(JSON.parse(stdout) as unknown).toEqual([`v${NODE_22}`, LOWEST_12, 1]);
  });

  it('hilo-core: four processes take keys from one SQLite file through better-sqlite3, none twice', async () => {
    writeFileSync(
      join(app, 'core.js'),
      `const Database = require('better-sqlite3');
const { createHiLo, sqliteClient } = require('hilo-core');
(async () => {
  const client = sqliteClient(new Database(process.argv[2], { timeout: 5000 }), { ownsDatabase: true });
  const hilo = createHiLo({ client, blockSize: 10, adaptive: false });
  const keys = [];
  for (let i = 0; i < 400; i++) {
    keys.push(await hilo.next(i % 2 === 0 ? 'orders' : 'customers'));
    // statements are prepared and dropped all along; collect them, as a busy app's heap would
    if (i % 40 === 0) global.gc();
  }
  await hilo.close();
  await client.close();
  console.log(JSON.stringify({ keys, driver: require('better-sqlite3/package.json').version }));
})();
`,
    );
    const file = join(app, 'keys.db');
    const results = (await Promise.all([1, 2, 3, 4].map(() => runOnNode22('core.js', [file])))) as Array<{
      keys: number[];
      driver: string;
    }>;
    expect(results.map((r) => r.driver)).toEqual([LOWEST_12, LOWEST_12, LOWEST_12, LOWEST_12]);
    const orders = results.flatMap((r) => r.keys.filter((_, i) => i % 2 === 0));
    const customers = results.flatMap((r) => r.keys.filter((_, i) => i % 2 === 1));
    expect(orders).toHaveLength(800);
    expect(new Set(orders).size).toBe(800);
    expect(new Set(customers).size).toBe(800);
  }, 120_000);

  it('hilo-typeorm: a better-sqlite3 DataSource of TypeORM 1.x gives keys at create() and saves rows under them', async () => {
    writeFileSync(
      join(app, 'typeorm.js'),
      `const { DataSource, EntitySchema } = require('typeorm');
const { hiloColumn, withHiLo } = require('hilo-typeorm');
const Author = new EntitySchema({
  name: 'Author',
  tableName: 'authors',
  columns: { id: hiloColumn(), name: { type: 'varchar', length: 100 } },
});
(async () => {
  const dataSource = withHiLo(
    new DataSource({ type: 'better-sqlite3', database: process.argv[2], entities: [Author], synchronize: true }),
    { blockSize: 10 },
  );
  await dataSource.initialize();
  const authors = dataSource.getRepository(Author);
  const created = ['Ada', 'Grace', 'Edsger'].map((name) => authors.create({ name }));
  const keysAtCreate = created.map((a) => a.id);
  await authors.save(created);
  global.gc();
  const stored = (await authors.find({ order: { id: 'ASC' } })).map((a) => [Number(a.id), a.name]);
  await dataSource.destroy();
  const typeorm = JSON.parse(require('fs').readFileSync('node_modules/typeorm/package.json', 'utf8')).version;
  console.log(JSON.stringify({ keysAtCreate, stored, typeorm }));
})();
`,
    );
    const result = (await runOnNode22('typeorm.js', [join(app, 'typeorm.db')])) as {
      keysAtCreate: number[];
      stored: Array<[number, string]>;
      typeorm: string;
    };
    expect(result.typeorm).toMatch(/^1\./);
    expect(result.keysAtCreate.every((key) => Number.isSafeInteger(key) && key > 0)).toBe(true);
    expect(result.stored).toEqual(
      result.keysAtCreate
        .map((key, i) => [key, ['Ada', 'Grace', 'Edsger'][i]])
        .sort((a, b) => Number(a[0]) - Number(b[0])),
    );
  }, 60_000);

  it(
    `hilo-core's SQLite suites (the core drivers project, worker processes included) pass on ${LOWEST_12} under Jest on ` +
      `Node.js ${NODE_22}, each file in a process of its own`,
    async () => {
      // jest.config.ts and packages/core-compat/child-resolve.mjs map better-sqlite3 to this folder when
      // HILO_BETTER_SQLITE3_DIR names it; the version test and the workers check that the mapping took. One Jest run
      // per file: better-sqlite3 12 is a native addon that is not context-aware, and in a Jest process's second test
      // file (a new VM context) a trigger's RAISE did not reach the caller (sql-key-guard failed after any other file
      // that had loaded it, and passed alone); 13 (Node-API) has no such limit. An app has one context.
      const files = [
        'packages/core-compat/test/version.test.ts',
        'packages/core/test/sources-sqlite-table.sqlite.test.ts',
        'packages/core/test/sql-key-guard.sqlite.test.ts',
        'packages/core/test/sql-connect.test.ts',
        'packages/core/test/sql-create-hilo.test.ts',
        'packages/core/test/private-source.test.ts',
      ];
      const env = { ...process.env, HILO_BETTER_SQLITE3_DIR: join(app, 'node_modules', 'better-sqlite3') };
      const queue = limiter(3);
      const results = await Promise.all(
        files.map(async (file) =>
          queue(async () => {
            const jest = [
              '--experimental-vm-modules',
              '--experimental-strip-types', // jest.config.ts: Node 22.17 strips types only when asked
              '--no-warnings',
              join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
              '--selectProjects',
              'core drivers (oldest)',
              '--ci',
              '--runInBand',
              '--',
              file,
            ];
            return run(node22, jest, { cwd: root, env, maxBuffer: 16 << 20 }).then(
              ({ stdout, stderr }) => ({ file, code: 0, out: stdout + stderr }),
              (error: Error & { code?: number; stdout?: string; stderr?: string }) => ({
                file,
                code: error.code ?? -1,
                out: `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
              }),
            );
          }),
        ),
      );
      for (const { file, code, out } of results) {
        expect({ file, code, out: code === 0 ? '' : out }).toEqual({ file, code: 0, out: '' });
        expect({ file, passed: /Test Suites: 1 passed, 1 total/.test(out) }).toEqual({ file, passed: true });
      }
    },
    300_000,
  );
});
