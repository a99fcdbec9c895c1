// Plain `npm install`, no flags, for every combination of ORM, version and driver the READMEs tell users to install
// (issue #41): the packed packages with the peers a user names, each in a fresh folder outside the workspace. npm
// fails such an install with ERESOLVE when two peer ranges leave no version for a package (hilo-core's
// better-sqlite3 >=13 against TypeORM's ^12 did), and that is decided by resolution alone: `--package-lock-only`
// resolves the whole tree as `npm install` does, without downloading or building it. What resolved is read back
// from the lockfile. Whether the packages then work with those versions is the other suites' job (the compat
// projects, pack-install, better-sqlite3-12).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limiter, packPublished, root, run } from './packed.ts';

/** The version of the packed packages (all share it). */
const HILO_VERSION = (
  JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as { version: string }
).version;

type Hilo =
  'hilo-core' | 'hilo-typeorm' | 'hilo-prisma' | 'hilo-mikro-orm' | 'hilo-drizzle' | 'hilo-kysely' | 'hilo-cli';

interface Install {
  /** What the test is named by. */
  title: string;
  /** hilo packages, from the packed tarballs (hilo-core is always added: the others depend on it). */
  hilo: Hilo[];
  /** What the user names after them, as typed on the command line (`typeorm@0.3`, `better-sqlite3`). */
  peers: string[];
  /** The app's package.json `overrides`, when the README tells users to write one. */
  overrides?: Record<string, string>;
  /** Installed version of a package → what it must be (a RegExp on the version). */
  resolves?: Record<string, RegExp>;
  /** The install must fail with this in npm's output (a README says it fails, and why). */
  fails?: RegExp;
}

const TYPEORM_LINES = [
  { line: '0.3', version: /^0\.3\./ },
  { line: '1', version: /^1\./ },
];

// A README line names one driver at a time ("pg, or mysql2, or better-sqlite3"); the cases below install an ORM's
// drivers together. That hides no conflict: each driver's version must meet hilo-core's range and the ORM's for that
// driver, whatever else is installed, so drivers together resolve exactly when each alone does, in fewer npm runs.
const INSTALLS: Install[] = [
  // hilo-core's README: `npm install hilo-core pg`, or postgres, mysql2, mariadb, better-sqlite3
  {
    title: 'hilo-core with pg, postgres, mysql2, mariadb, better-sqlite3 and @opentelemetry/api',
    hilo: ['hilo-core'],
    peers: ['pg', 'postgres', 'mysql2', 'mariadb', 'better-sqlite3', '@opentelemetry/api'],
    resolves: { pg: /^8\./, postgres: /^3\./, mysql2: /^3\./, mariadb: /^3\./, 'better-sqlite3': /^13\./ },
  },
  {
    title: 'hilo-core with better-sqlite3 12',
    hilo: ['hilo-core'],
    peers: ['better-sqlite3@12'],
    resolves: { 'better-sqlite3': /^12\.11\./ },
  },

  // hilo-typeorm's README: `npm install hilo-typeorm hilo-core typeorm pg`, or mysql2, or better-sqlite3; TypeORM 0.3 and 1.x
  ...TYPEORM_LINES.flatMap(({ line, version }): Install[] => [
    {
      // the user's report: TypeORM declares better-sqlite3 ^12, npm picks the newest 12 for it
      title: `hilo-typeorm on TypeORM ${line} with pg, mysql2 and better-sqlite3`,
      hilo: ['hilo-typeorm'],
      peers: [`typeorm@${line}`, 'pg', 'mysql2', 'better-sqlite3'],
      resolves: { typeorm: version, 'better-sqlite3': /^12\.11\./ },
    },
    {
      title: `hilo-typeorm on TypeORM ${line} with better-sqlite3 12`,
      hilo: ['hilo-typeorm'],
      peers: [`typeorm@${line}`, 'better-sqlite3@12'],
      resolves: { typeorm: version, 'better-sqlite3': /^12\.11\./ },
    },
    {
      // better-sqlite3 12 aborts Node.js 24.19 and later: the README's override puts 13 under TypeORM
      title: `hilo-typeorm on TypeORM ${line} with better-sqlite3 13 and the README's override`,
      hilo: ['hilo-typeorm'],
      peers: [`typeorm@${line}`, 'better-sqlite3@13'],
      overrides: { 'better-sqlite3': '$better-sqlite3' },
      resolves: { typeorm: version, 'better-sqlite3': /^13\./ },
    },
  ]),
  // the oldest 0.3 releases declare older drivers than hilo-core's ranges (the README names the first that fit)
  {
    title: 'hilo-typeorm on TypeORM 0.3.12 with mysql2',
    hilo: ['hilo-typeorm'],
    peers: ['typeorm@0.3.12', 'mysql2'],
    resolves: { typeorm: /^0\.3\.12$/, mysql2: /^3\./ },
  },
  {
    title: 'hilo-typeorm on TypeORM 0.3.11 with mysql2: ERESOLVE (TypeORM declares mysql2 ^2)',
    hilo: ['hilo-typeorm'],
    peers: ['typeorm@0.3.11', 'mysql2'],
    fails: /ERESOLVE[\s\S]*mysql2@"\^2\.2\.5" from typeorm@0\.3\.11/,
  },
  {
    title: 'hilo-typeorm on TypeORM 0.3.27 with better-sqlite3',
    hilo: ['hilo-typeorm'],
    peers: ['typeorm@0.3.27', 'better-sqlite3'],
    resolves: { typeorm: /^0\.3\.27$/, 'better-sqlite3': /^12\.11\./ },
  },
  {
    // what the README says about 13 without the override: TypeORM's own range refuses it, hilo or not
    title: 'TypeORM 1.x with better-sqlite3 13 and no override, without hilo: ERESOLVE from TypeORM’s peer range',
    hilo: [],
    peers: ['typeorm@1', 'better-sqlite3@13'],
    fails: /ERESOLVE[\s\S]*peerOptional better-sqlite3@"\^12\.0\.0" from typeorm@1\./,
  },
  {
    title: 'hilo-typeorm in a Nest 11 app with @nestjs/typeorm 11 and TypeORM 0.3',
    hilo: ['hilo-typeorm'],
    peers: [
      '@nestjs/common@11',
      '@nestjs/core@11',
      '@nestjs/typeorm@11',
      'reflect-metadata',
      'rxjs',
      'typeorm@0.3',
      'pg',
    ],
    resolves: { typeorm: /^0\.3\./, '@nestjs/typeorm': /^11\./ },
  },

  // hilo-prisma's README: `npm install hilo-prisma hilo-core @prisma/client @prisma/adapter-pg pg` and the prisma CLI;
  // MariaDB through @prisma/adapter-mariadb
  ...['7', '6'].map((line): Install => ({
    title: `hilo-prisma on Prisma ${line} with @prisma/adapter-pg and @prisma/adapter-mariadb`,
    hilo: ['hilo-prisma'],
    peers: [
      `@prisma/client@${line}`,
      `@prisma/adapter-pg@${line}`,
      `@prisma/adapter-mariadb@${line}`,
      'pg',
      `prisma@${line}`,
    ],
    resolves: { '@prisma/client': new RegExp(`^${line}\\.`) },
  })),

  // hilo-mikro-orm's README: `npm install hilo-mikro-orm hilo-core` beside MikroORM 7 or 6.6 and a driver, every
  // @mikro-orm package at one version (MikroORM pins its packages to each other exactly)
  {
    title: 'hilo-mikro-orm on MikroORM 7.2.1 with @mikro-orm/postgresql, mariadb, sqlite and decorators',
    hilo: ['hilo-mikro-orm'],
    peers: [
      '@mikro-orm/core@7.2.1',
      '@mikro-orm/postgresql@7.2.1',
      '@mikro-orm/mariadb@7.2.1',
      '@mikro-orm/sqlite@7.2.1',
      '@mikro-orm/decorators@7.2.1',
    ],
    resolves: { '@mikro-orm/core': /^7\.2\.1$/ },
  },
  {
    title: 'hilo-mikro-orm on MikroORM 7.2.2 with @mikro-orm/sqlite',
    hilo: ['hilo-mikro-orm'],
    peers: ['@mikro-orm/core@7.2.2', '@mikro-orm/sqlite@7.2.2'],
    resolves: { '@mikro-orm/core': /^7\.2\.2$/, 'better-sqlite3': /^13\./ },
  },
  {
    // 7.2.5, the newest release, was published for core, sql and postgresql only (no decorators)
    title: 'hilo-mikro-orm on MikroORM 7.2.5 with @mikro-orm/postgresql',
    hilo: ['hilo-mikro-orm'],
    peers: ['@mikro-orm/core@7.2.5', '@mikro-orm/postgresql@7.2.5'],
    resolves: { '@mikro-orm/core': /^7\.2\.5$/, '@mikro-orm/sql': /^7\.2\.5$/ },
  },
  {
    // what the README says about unpinned installs: the newest of each package need different cores, hilo or not
    title: 'MikroORM 7 unpinned, without hilo: ERESOLVE from MikroORM’s exact pins',
    hilo: [],
    peers: ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/decorators'],
    fails: /ERESOLVE[\s\S]*@mikro-orm\/core@"7\.2\.\d+" from @mikro-orm\//,
  },
  {
    title: 'hilo-mikro-orm on MikroORM 7 in a Nest 11 app with @mikro-orm/nestjs 7',
    hilo: ['hilo-mikro-orm'],
    peers: [
      '@mikro-orm/core@7.2.1',
      '@mikro-orm/postgresql@7.2.1',
      '@mikro-orm/nestjs@7',
      '@nestjs/common@11',
      '@nestjs/core@11',
      'reflect-metadata',
      'rxjs',
    ],
    resolves: { '@mikro-orm/core': /^7\.2\.1$/, '@mikro-orm/nestjs': /^7\./ },
  },
  {
    title: 'hilo-mikro-orm on MikroORM 6.6',
    hilo: ['hilo-mikro-orm'],
    peers: ['@mikro-orm/core@6.6.16', '@mikro-orm/postgresql@6.6.16'],
    resolves: { '@mikro-orm/core': /^6\.6\.16$/ },
  },

  // hilo-drizzle's and hilo-kysely's READMEs: the ORM with pg, or postgres, mysql2, better-sqlite3
  ...(['drizzle-orm', 'kysely'] as const).map((orm): Install => ({
    title: `hilo-${orm === 'kysely' ? 'kysely' : 'drizzle'} with pg, postgres, mysql2 and better-sqlite3`,
    hilo: [orm === 'kysely' ? 'hilo-kysely' : 'hilo-drizzle'],
    peers: [orm, 'pg', 'postgres', 'mysql2', 'better-sqlite3'],
    resolves: { 'better-sqlite3': /^13\./ },
  })),
  {
    title: 'hilo-drizzle on the Drizzle 1.0 release candidate',
    hilo: ['hilo-drizzle'],
    peers: ['drizzle-orm@1.0.0-rc.5', 'pg'],
    resolves: { 'drizzle-orm': /^1\.0\.0-rc\.5$/ },
  },

  // hilo-cli's README: `npm install --save-dev hilo-cli`
  { title: 'hilo-cli', hilo: ['hilo-cli'], peers: [] },
];

/** The package names an `npm install` line of a README installs (its arguments that are not options). */
const namesOf = (line: string): string[] =>
  line
    .replace(/#.*/, '')
    .trim()
    .split(/\s+/)
    .slice(2)
    .filter((arg) => !arg.startsWith('-'))
    .map((arg) => arg.replace(/(.)@[^/]*$/, '$1'));

describe('plain npm install of the packed packages with the peers the READMEs name', () => {
  let work = '';
  let tarballs: Record<string, string> = {};
  const queue = limiter(6);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hilo-npm-peers-'));
    tarballs = await packPublished(join(work, 'packs'));
  }, 120_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('covers every `npm install` line of the packages’ READMEs', () => {
    const lines = ['core', 'typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely', 'cli'].flatMap((folder) => {
      const readme = `packages/${folder}/README.md`;
      return readFileSync(join(root, readme), 'utf8')
        .split('\n')
        .filter((line) => /^npm install /.test(line)); // lines of the ```sh blocks
    });
    expect(lines.length).toBeGreaterThanOrEqual(7);
    const installed = INSTALLS.map(
      (install) => new Set([...install.hilo, 'hilo-core', ...namesOf(`npm install ${install.peers.join(' ')}`)]),
    );
    for (const line of lines) {
      const names = namesOf(line);
      expect({ line, covered: installed.some((set) => names.every((name) => set.has(name))) }).toEqual({
        line,
        covered: true,
      });
    }
  });

  it.concurrent.each(INSTALLS)(
    '$title',
    async ({ hilo, peers, overrides, resolves, fails }) => {
      const app = await queue(async () => {
        const dir = mkdtempSync(join(work, 'app-'));
        writeFileSync(
          join(dir, 'package.json'),
          JSON.stringify({ name: 'app', private: true, ...(overrides ? { overrides } : {}) }),
        );
        const packages =
          hilo.length === 0 ? [] : [...new Set<Hilo>(['hilo-core', ...hilo])].map((name) => tarballs[name]!);
        const args = [
          'install',
          '--package-lock-only',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          ...packages,
          ...peers,
        ];
        const result = await run('npm', args, { cwd: dir, maxBuffer: 16 << 20 }).then(
          ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
          (error: Error & { stdout?: string; stderr?: string }) => ({
            ok: false,
            output: `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
          }),
        );
        return { dir, ...result };
      });
      if (fails) {
        expect(app.ok).toBe(false);
        expect(app.output).toMatch(fails);
        return;
      }
      // an ERESOLVE warning means npm overrode a peer range it could not meet: as bad as the error
      expect({ ok: app.ok, eresolve: app.output.includes('ERESOLVE'), output: app.ok ? '' : app.output }).toEqual({
        ok: true,
        eresolve: false,
        output: '',
      });
      const lock = JSON.parse(readFileSync(join(app.dir, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { version?: string }>;
      };
      const version = (name: string) => lock.packages[`node_modules/${name}`]?.version;
      for (const name of [...new Set(['hilo-core', ...hilo])])
        expect({ name, version: version(name) }).toEqual({ name, version: HILO_VERSION });
      for (const [name, pattern] of Object.entries(resolves ?? {})) {
        expect({ name, version: version(name) }).toEqual({ name, version: expect.stringMatching(pattern) });
      }
    },
    60_000,
  );
});
