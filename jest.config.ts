/**
 * One Jest run for the whole monorepo. Test files import packages by name (`hilo-core`, …); those names map
 * to the packages' TypeScript sources, so tests never run against stale build output.
 * ESM throughout (MikroORM 7 and the Prisma 7 client are ESM-only): run with --experimental-vm-modules.
 */
import { readFileSync } from 'node:fs';
import type { Config } from 'jest';

const swc = (decorators: 'legacy' | 'es') => [
  '@swc/jest',
  {
    jsc: {
      target: 'es2023',
      parser: { syntax: 'typescript', decorators: true },
      transform:
        decorators === 'legacy'
          ? { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false }
          : { decoratorVersion: '2022-03' },
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const project = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>'],
  testMatch: ['**/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.tools/'],
  modulePathIgnorePatterns: ['<rootDir>/.tools/', '/dist/'],
  transform: {
    // files named *.es-decorators.test.ts (and their fixtures) use TC39 decorators, the rest legacy ones
    '\\.es-decorators(\\.test)?\\.ts$': swc('es') as never,
    '\\.ts$': swc('legacy') as never,
  },
  moduleNameMapper: {
    '^hilo-core$': '<rootDir>/packages/core/src/index.ts',
    '^hilo-core/otel$': '<rootDir>/packages/core/src/otel.ts',
    '^hilo-core/adapter-kit$': '<rootDir>/packages/core/src/kit.ts',
    '^hilo-typeorm$': '<rootDir>/packages/typeorm/src/index.ts',
    '^hilo-prisma$': '<rootDir>/packages/prisma/src/index.ts',
    '^hilo-mikro-orm$': '<rootDir>/packages/mikro-orm/src/index.ts',
    '^hilo-drizzle$': '<rootDir>/packages/drizzle/src/index.ts',
    '^hilo-kysely$': '<rootDir>/packages/kysely/src/index.ts',
    '^hilo-cli$': '<rootDir>/packages/cli/src/index.ts',
    '^@hilo/testing$': '<rootDir>/packages/testing/src/index.ts',
    '^@hilo/testing/bench$': '<rootDir>/packages/testing/src/bench-sides.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  injectGlobals: true,
} satisfies Config;

/**
 * hilo-typeorm's peer range covers TypeORM 0.3 and 1.x; the workspace installs the newest 1.x. These projects
 * rerun hilo-typeorm's suites with `typeorm` mapped to the oldest and newest 0.3 and the oldest 1.x (npm aliases
 * installed by packages/typeorm-compat), so the adapter runs against each line's own classes.
 */
const typeormRelease = (version: string) => {
  const dir = `<rootDir>/packages/typeorm-compat/node_modules/typeorm-${version}`;
  return {
    ...project,
    displayName: `typeorm ${version}`,
    globals: { HILO_TYPEORM_VERSION: version },
    testMatch: ['<rootDir>/packages/typeorm-compat/test/**/*.test.ts', '<rootDir>/packages/typeorm/test/**/*.test.ts'],
    moduleNameMapper: {
      '^typeorm$': `${dir}/index.js`,
      '^typeorm/(.*)$': `${dir}/$1`,
      ...project.moduleNameMapper,
    },
  };
};

/**
 * hilo-drizzle's peer range covers Drizzle 0.36 to 0.45, a 1.0 beta and the 1.0 release candidate; the workspace installs
 * 0.45.4. These projects rerun hilo-drizzle's suites with `drizzle-orm` mapped to 0.36.0, 1.0.0-beta.24 and 1.0.0-rc.5 (npm
 * aliases installed by packages/drizzle-compat); the conformance worker's child processes get the same mapping
 * from packages/drizzle-compat/child/tsconfig.VERSION.json.
 */
const drizzle = (version: string) => ({
  ...project,
  displayName: `drizzle ${version}`,
  globals: { HILO_DRIZZLE_VERSION: version },
  testMatch: ['<rootDir>/packages/drizzle-compat/test/**/*.test.ts', '<rootDir>/packages/drizzle/test/**/*.test.ts'],
  // drizzle-kit runs as its own process with the workspace's drizzle-orm: its suite runs once, in the workspace's project
  testPathIgnorePatterns: [...project.testPathIgnorePatterns, '/packages/drizzle/test/drizzle-kit\\.test\\.ts$'],
  moduleNameMapper: {
    '^drizzle-orm$': `drizzle-orm-${version}`,
    '^drizzle-orm/(.*)$': `drizzle-orm-${version}/$1`,
    ...project.moduleNameMapper,
  },
  // the aliases are installed in packages/drizzle-compat, so they resolve from there
  modulePaths: ['<rootDir>/packages/drizzle-compat/node_modules'],
});

/**
 * hilo-core's optional peers (`pg`, `postgres`, `mysql2`, `mariadb`, `better-sqlite3`, `@opentelemetry/api`) are installed at their
 * newest in the workspace. This project reruns hilo-core's suites with each mapped to the oldest release its
 * peer range admits, installed by packages/core-compat as npm aliases (`"pg-8.11.0": "npm:pg@8.11.0"`); the
 * suites' worker processes load the same through packages/core-compat/child-hooks.mjs and check the versions.
 */
/**
 * The hilo-core suites that depend on a driver's version: what the client wrappers, `connect()`, the sources and the
 * error mapping do through `pg`, postgres.js, `mysql2`, `mariadb`, `better-sqlite3` or `@opentelemetry/api`, and the
 * fault suites (how each driver reports a lost, refused or stalled connection). The others check hilo's own
 * arithmetic, options, presets and maintenance statements, which no driver release changes; they run once, in the
 * workspace's project.
 */
const CORE_DRIVER_SUITES = [
  'sources-*',
  'sql-sources.*',
  'sql-connect',
  'sql-create-hilo',
  'sql-key-guard.{postgres,mysql,sqlite}',
  'fault.*',
  'connect-fallback.mysql',
  'mysql-callback-pools.mysql',
  'mariadb-client.mysql',
  'postgres-js-client.postgres',
  'private-source',
  'stored-key-kinds.*',
  'otel.postgres',
  'short-lived.*',
];

/**
 * `HILO_BETTER_SQLITE3_DIR`: a better-sqlite3 package folder outside the workspace that replaces the alias in this
 * project (and in its workers, packages/core-compat/child-resolve.mjs). scripts/test/better-sqlite3-12.test.ts sets it
 * to better-sqlite3 12, which it builds for Node.js 22 (12 aborts Node 24.19+), and runs the SQLite suites there.
 */
const betterSqlite3Dir = process.env['HILO_BETTER_SQLITE3_DIR'];

const coreDriversOldest = () => {
  const dir = '<rootDir>/packages/core-compat/node_modules';
  const installed = JSON.parse(readFileSync('packages/core-compat/package.json', 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const aliases = Object.entries(installed.devDependencies).map(([alias, spec]) => {
    const [, name, version] = /^npm:(.+)@([^@]+)$/.exec(spec)!;
    if (name === 'better-sqlite3' && betterSqlite3Dir) {
      const { version: replaced } = JSON.parse(readFileSync(`${betterSqlite3Dir}/package.json`, 'utf8')) as {
        version: string;
      };
      return { name, version: replaced, alias: betterSqlite3Dir };
    }
    return { name: name!, version: version!, alias };
  });
  const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return {
    ...project,
    displayName: 'core drivers (oldest)',
    globals: {
      HILO_WORKER_IMPORTS: ['packages/core-compat/child-hooks.mjs'],
      HILO_WORKER_PACKAGES: Object.fromEntries(aliases.map(({ name, version }) => [name, version])),
    },
    testMatch: [
      '<rootDir>/packages/core-compat/test/**/*.test.ts',
      ...CORE_DRIVER_SUITES.map((name) => `<rootDir>/packages/core/test/${name}.test.ts`),
    ],
    moduleNameMapper: {
      ...Object.fromEntries(
        aliases.flatMap(({ name, alias }) => [
          [`^${escape(name)}$`, alias],
          [`^${escape(name)}/(.*)$`, `${alias}/$1`],
        ]),
      ),
      ...project.moduleNameMapper,
    },
    // the aliases are installed in packages/core-compat, so they resolve from there
    modulePaths: [dir],
  };
};

/**
 * hilo-prisma's peer range is Prisma 6.16.1 to 7.x; the workspace installs the newest 7.x. This project reruns
 * hilo-prisma's suites against 6.16.1, installed in packages/prisma-compat, whose build:test generates the test clients
 * (and runs hilo's generator) with Prisma 6.16.1's CLI (the schemas in Prisma 6's form, see its
 * scripts/generate.mjs): the generated clients, `@prisma/client/extension` and the driver
 * adapters map there. The suites' worker processes load the same through packages/prisma-compat/child-hooks.mjs
 * (named in `HILO_WORKER_IMPORTS`, read by @hilo/testing's workerMapping).
 */
const PRISMA_OLDEST = '6.16.1';
const prismaOldest = () => {
  const dir = '<rootDir>/packages/prisma-compat';
  return {
    ...project,
    displayName: `prisma ${PRISMA_OLDEST}`,
    globals: { HILO_PRISMA_VERSION: PRISMA_OLDEST, HILO_WORKER_IMPORTS: ['packages/prisma-compat/child-hooks.mjs'] },
    testMatch: ['<rootDir>/packages/prisma-compat/test/**/*.test.ts', '<rootDir>/packages/prisma/test/**/*.test.ts'],
    moduleNameMapper: {
      '^(?:\\.{1,2}/)+generated/(postgres|mysql|sqlite)/(client|hilo)\\.js$': `${dir}/generated/$1/$2.ts`,
      '^@prisma/client/extension$': `${dir}/node_modules/@prisma/client/extension.js`,
      '^@prisma/adapter-(pg|mariadb)$': `${dir}/node_modules/@prisma/adapter-$1/dist/index.mjs`,
      '^@prisma/adapter-libsql$': `${dir}/node_modules/@prisma/adapter-libsql/dist/index-node.mjs`,
      ...project.moduleNameMapper,
    },
  };
};

/**
 * hilo-kysely's peer range is Kysely 0.27 to 0.29; the workspace installs the newest 0.29. This project reruns
 * hilo-kysely's suites with `kysely` mapped to 0.27.0 (an npm alias installed by packages/kysely-compat); the
 * conformance worker's child processes get the same mapping from packages/kysely-compat/child/tsconfig.json.
 */
const KYSELY_OLDEST = '0.27.0';
const kyselyOldest = () => ({
  ...project,
  displayName: `kysely ${KYSELY_OLDEST}`,
  globals: { HILO_KYSELY_VERSION: KYSELY_OLDEST },
  testMatch: ['<rootDir>/packages/kysely-compat/test/**/*.test.ts', '<rootDir>/packages/kysely/test/**/*.test.ts'],
  // Kysely's own PGliteDialect arrived in 0.29: before it, PGlite apps use a community dialect
  testPathIgnorePatterns: [...project.testPathIgnorePatterns, '/packages/kysely/test/pglite\\.test\\.ts$'],
  moduleNameMapper: {
    '^kysely$': `<rootDir>/packages/kysely-compat/node_modules/kysely-${KYSELY_OLDEST}/dist/esm/index.js`,
    ...project.moduleNameMapper,
  },
});

/**
 * hilo-mikro-orm suites that run only against the workspace's MikroORM: processes.* starts three MikroORM processes
 * per database (about 25 s a file), and what it proves for a release, that processes of that release never share a
 * key, the conformance suites prove for each release with workers of their own (conformance.*.test.ts, "no duplicates
 * across processes"), which every MikroORM project runs.
 */
const MIKRO_ORM_WORKSPACE_ONLY = ['/packages/mikro-orm/test/processes\\.\\w+\\.test\\.ts$'];

/**
 * hilo-mikro-orm's peer range starts at MikroORM 7.2.0 (the first with the connection's public
 * `getNativeClient()`); the workspace installs the newest complete 7.x set. This project reruns
 * hilo-mikro-orm's suites with `@mikro-orm/*` mapped to 7.2.0, installed in packages/mikro-orm-compat under the
 * packages' own names, where pnpm resolves each driver's `@mikro-orm/core` and `@mikro-orm/sql` to 7.2.0 too.
 * The cross-process workers get the same mapping from packages/mikro-orm-compat/child/tsconfig.json.
 */
const MIKRO_ORM_OLDEST = '7.2.0';
const mikroOrmOldest = () => {
  const dir = '<rootDir>/packages/mikro-orm-compat/node_modules/@mikro-orm';
  return {
    ...project,
    displayName: `mikro-orm ${MIKRO_ORM_OLDEST}`,
    globals: { HILO_MIKRO_ORM_VERSION: MIKRO_ORM_OLDEST, HILO_MIKRO_ORM_COMPAT: 'mikro-orm-compat' },
    testMatch: [
      '<rootDir>/packages/mikro-orm-compat/test/**/*.test.ts',
      '<rootDir>/packages/mikro-orm/test/**/*.test.ts',
    ],
    testPathIgnorePatterns: [...project.testPathIgnorePatterns, ...MIKRO_ORM_WORKSPACE_ONLY],
    moduleNameMapper: {
      '^@mikro-orm/(core|postgresql|sqlite|mariadb)$': `${dir}/$1/index.js`,
      '^@mikro-orm/decorators/(es|legacy)$': `${dir}/decorators/$1/index.js`,
      ...project.moduleNameMapper,
    },
  };
};

/**
 * MikroORM 7.2.2 was published for `@mikro-orm/core`, `sql` and `sqlite` only: the PostgreSQL and MariaDB drivers
 * and `@mikro-orm/decorators` have no 7.2.2, and each of those releases requires its own core exactly, so the
 * workspace runs 7.2.1, and a SQLite app is the one that can run 7.2.2 (the SQLite driver's newest release). This
 * project reruns hilo-mikro-orm's SQLite suites (and the check of the internals it relies on) with core and the
 * SQLite driver mapped to 7.2.2, installed in packages/mikro-orm-sqlite-compat.
 */
const MIKRO_ORM_SQLITE_NEWEST = '7.2.2';
const mikroOrmSqliteNewest = () => {
  const dir = '<rootDir>/packages/mikro-orm-sqlite-compat/node_modules/@mikro-orm';
  return {
    ...project,
    displayName: `mikro-orm ${MIKRO_ORM_SQLITE_NEWEST} (SQLite)`,
    globals: { HILO_MIKRO_ORM_VERSION: MIKRO_ORM_SQLITE_NEWEST, HILO_MIKRO_ORM_COMPAT: 'mikro-orm-sqlite-compat' },
    testMatch: [
      '<rootDir>/packages/mikro-orm-sqlite-compat/test/**/*.test.ts',
      '<rootDir>/packages/mikro-orm/test/sqlite.test.ts',
      '<rootDir>/packages/mikro-orm/test/conformance.sqlite.test.ts',
      '<rootDir>/packages/mikro-orm/test/internals.test.ts',
    ],
    moduleNameMapper: {
      '^@mikro-orm/(core|sqlite)$': `${dir}/$1/index.js`,
      ...project.moduleNameMapper,
    },
  };
};

/**
 * MikroORM 7.2.5, the newest release of hilo-mikro-orm's peer range, was published for `@mikro-orm/core`, `sql`
 * and `postgresql` only (the SQLite driver stops at 7.2.2, MariaDB and `@mikro-orm/decorators` at 7.2.1, each
 * requiring core of its own version exactly), so a PostgreSQL app with `defineEntity` (no decorators) is the one
 * that can run it. This project reruns hilo-mikro-orm's PostgreSQL suites that need neither decorators nor another
 * driver with core and the PostgreSQL driver mapped to 7.2.5, installed in packages/mikro-orm-postgres-compat
 * (whose test also checks, on PostgreSQL, the internals internals.test.ts checks on SQLite); the cross-process
 * workers get the same mapping from packages/mikro-orm-postgres-compat/child/tsconfig.json. Left out:
 * legacy-decorators.postgres and fallback.postgres (`@mikro-orm/decorators`, no 7.2.5), and the files that open
 * SQLite or MariaDB ORMs, whose drivers would be another release on core 7.2.5: internals, configuration and
 * schema-diff (the SQLite and MariaDB drivers resolve as in the workspace, loaded by support/orm.ts but unused
 * by the files here).
 */
const MIKRO_ORM_POSTGRES_NEWEST = '7.2.5';
const mikroOrmPostgresNewest = () => {
  const dir = '<rootDir>/packages/mikro-orm-postgres-compat/node_modules/@mikro-orm';
  return {
    ...project,
    displayName: `mikro-orm ${MIKRO_ORM_POSTGRES_NEWEST} (PostgreSQL)`,
    globals: {
      HILO_MIKRO_ORM_VERSION: MIKRO_ORM_POSTGRES_NEWEST,
      HILO_MIKRO_ORM_COMPAT: 'mikro-orm-postgres-compat',
    },
    testMatch: [
      '<rootDir>/packages/mikro-orm-postgres-compat/test/**/*.test.ts',
      ...[
        'conformance.postgres',
        'define-entity.postgres',
        'upsert.postgres',
        'close.postgres',
        'reliability.postgres',
        'replicas.postgres',
        'source-layout.postgres',
      ].map((name) => `<rootDir>/packages/mikro-orm/test/${name}.test.ts`),
    ],
    moduleNameMapper: {
      '^@mikro-orm/(core|postgresql)$': `${dir}/$1/index.js`,
      ...project.moduleNameMapper,
    },
  };
};

/**
 * MikroORM 6.6, the previous major line (still maintained, and what apps written before 7 run), differs where hilo
 * touches it: knex drivers, extensions
 * registered after `init()` has discovered and connected, decorators in `@mikro-orm/core`. This project reruns
 * hilo-mikro-orm's suites with `@mikro-orm/*` mapped to 6.6.16, installed in packages/mikro-orm-6-compat: SQLite
 * is the better-sqlite3 driver (shims/sqlite.ts), and the decorator suites, whose `@mikro-orm/decorators` 6 does
 * not have, are replaced by the same suites over 6's own decorators (packages/mikro-orm-6-compat/test).
 */
const MIKRO_ORM_6 = '6.6.16';
const mikroOrm6 = () => {
  const dir = '<rootDir>/packages/mikro-orm-6-compat/node_modules/@mikro-orm';
  return {
    ...project,
    displayName: `mikro-orm ${MIKRO_ORM_6}`,
    globals: { HILO_MIKRO_ORM_VERSION: MIKRO_ORM_6, HILO_MIKRO_ORM_COMPAT: 'mikro-orm-6-compat' },
    testMatch: [
      '<rootDir>/packages/mikro-orm-6-compat/test/**/*.test.ts',
      '<rootDir>/packages/mikro-orm/test/**/*.test.ts',
    ],
    // `hilo-mikro-orm/legacy` and `/es` build on `@mikro-orm/decorators`, which MikroORM 6 does not have:
    // packages/mikro-orm-6-compat/test runs the same suites with 6's own decorators instead
    testPathIgnorePatterns: [
      ...project.testPathIgnorePatterns,
      ...MIKRO_ORM_WORKSPACE_ONLY,
      '\\.es-decorators\\.test\\.ts$',
      '/legacy-decorators\\.\\w+\\.test\\.ts$',
    ],
    moduleNameMapper: {
      '^@mikro-orm/(core|postgresql|mariadb|mysql|knex|better-sqlite)$': `${dir}/$1/index.js`,
      '^@mikro-orm/sqlite$': '<rootDir>/packages/mikro-orm-6-compat/shims/sqlite.ts',
      ...project.moduleNameMapper,
    },
  };
};

/**
 * End-to-end files the full tier found a pass on record for, with the same inputs (scripts/test.mjs, REMEMBERED):
 * left out of this run, and named in its output.
 */
const passedBefore = (process.env['HILO_E2E_PASSED'] ?? '')
  .split(',')
  .filter((file) => file !== '')
  .map((file) => `<rootDir>/${file.replace(/[.]/g, '\\.')}$`);

/** The workspace's project: every package against the newest release of each peer (what the workspace installs). */
const workspace = {
  ...project,
  displayName: 'hilo',
  testPathIgnorePatterns: [...project.testPathIgnorePatterns, '/packages/[^/]+-compat/', ...passedBefore],
};

/**
 * What the quick tier (`./pnpm test:quick`, scripts/test.mjs) leaves out of the workspace's project: end-to-end files
 * (they pack and install packages, resolve npm installs of them, clone the repository, run the demo, the NestJS app,
 * README programs or the `hilo` command as processes), the fault-injection suites (each waits out timeouts on
 * purpose), the failover suites (a primary and standby per test, replication cut, the primary killed), the
 * Galera suites (a three-node cluster per file, nodes isolated and killed) and the Patroni suite (a two-node cluster
 * with etcd, switched over and failed over). The full tier runs them.
 */
const NOT_QUICK = [
  '/scripts/test/(pack-install|clone|demo|nestjs-example|nest-app|npm-peers|better-sqlite3-12)\\.',
  '/scripts/test/readme-programs\\.(postgres|mysql)\\.',
  '/examples/[^/]+/test/',
  '/packages/cli/test/cli\\.(postgres|mysql)\\.',
  '/packages/drizzle/test/drizzle-kit\\.',
  '/packages/core/test/fault\\.',
  '/packages/core/test/failover\\.',
  '/packages/core/test/galera\\.',
  '/packages/core/test/patroni\\.',
];

const quick = process.env['HILO_TEST_TIER'] === 'quick';

const config: Config = {
  projects: quick
    ? [{ ...workspace, testPathIgnorePatterns: [...workspace.testPathIgnorePatterns, ...NOT_QUICK] }]
    : [
        workspace,
        typeormRelease('0.3.0'),
        typeormRelease('0.3.31'),
        typeormRelease('1.0.0'),
        drizzle('0.36.0'),
        drizzle('1.0.0-beta.24'),
        drizzle('1.0.0-rc.5'),
        mikroOrmOldest(),
        mikroOrmSqliteNewest(),
        mikroOrmPostgresNewest(),
        mikroOrm6(),
        kyselyOldest(),
        prismaOldest(),
        coreDriversOldest(),
      ],
  globalSetup: '<rootDir>/packages/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testing/src/global-teardown.ts',
  // testTimeout and maxWorkers are global options: inside a project Jest ignores them
  testTimeout: 60_000,
  maxWorkers: 2,
  // a worker that ran a file and holds more than this is replaced by a fresh one: each file loads its ORMs into a
  // module registry of its own, and a worker that ran the whole suite grew to 4 GB, where its garbage collections
  // stalled the tests' event loops for seconds (reservations timed out at 5 s in CI while the database was idle)
  workerIdleMemoryLimit: '1GB',
};

export default config;
