// `drizzle-kit push` brings the database in line with the application's Drizzle schema, and drops what the
// schema does not declare: hilo's sequences and hi table among them. A recreated sequence or hi table could
// hand out keys that blocks held in memory by running processes still cover. These tests run the real
// drizzle-kit CLI on each database, the 0.31 line and the 1.0 release candidate: without the README's settings
// it drops hilo's objects (why the settings are needed), and with them keeps them, so that keys continue above
// every key handed out before the push.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describeMysql, describePostgres, type TestDatabase } from '@hilo/testing';
import { hiloDrizzle } from 'hilo-drizzle';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures', 'drizzle-kit');
const compat = join(here, '..', '..', 'drizzle-compat', 'node_modules');

/**
 * Node's on-disk compile cache for the drizzle-kit processes: each push starts Node on drizzle-kit's bundle of
 * several megabytes, and this file runs about 25 of them, so each after the first skips compiling it again.
 * The cache is checked against the source, so a stale entry is never used.
 */
const compileCache = join(tmpdir(), 'hilo-drizzle-kit-compile-cache');

/** The rows `sql` returns on the PostgreSQL database at `url`, through a client of this process. */
async function pgQuery(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The drizzle-kit releases the README's settings are checked on, each with the drizzle-orm its schema files
 * import: the workspace's 0.31 line, and the 1.0 release candidate (npm aliases installed by
 * packages/drizzle-compat). drizzle-kit 1.0 on MariaDB reads `bigint(20)` back as a different type than
 * `bigint` and stops for a confirmation (exit code 2) unless `--hints` gives it; that is drizzle-kit's own
 * behaviour, not hilo's, so its pushes to MariaDB pass that hint.
 */
const kits = [
  {
    version: '0.31.11',
    kit: join(here, '..', 'node_modules', 'drizzle-kit'),
    orm: join(here, '..', 'node_modules', 'drizzle-orm'),
    mysqlHints: [] as object[],
    managesEverySchema: false,
    asksBeforeDroppingRows: false,
  },
  {
    version: '1.0.0-rc.5',
    kit: join(compat, 'drizzle-kit-1.0.0-rc.5'),
    orm: join(compat, 'drizzle-orm-1.0.0-rc.5'),
    mysqlHints: [{ type: 'confirm_data_loss', kind: 'column', entity: ['public', 'notes', 'id'] }] as object[],
    managesEverySchema: true,
    asksBeforeDroppingRows: true,
  },
];
type Kit = (typeof kits)[number];

/** The fixtures in a folder of their own whose `drizzle-kit` and `drizzle-orm` are `kit`'s; checks the releases. */
function kitFolder(kit: Kit, root: string): string {
  const dir = join(root, kit.version);
  cpSync(fixtures, dir, { recursive: true });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(realpathSync(kit.kit), join(dir, 'node_modules', 'drizzle-kit'), 'dir');
  symlinkSync(realpathSync(kit.orm), join(dir, 'node_modules', 'drizzle-orm'), 'dir');
  const version = (name: string) =>
    (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  expect(version('drizzle-kit')).toBe(kit.version);
  expect(version('drizzle-orm')).toMatch(kit.version.startsWith('1.') ? kit.version : /^0\.45\./);
  return dir;
}

const folders = new Map<Kit, string>();
let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'hilo-drizzle-kit-'));
  for (const kit of kits) folders.set(kit, kitFolder(kit, root));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * `drizzle-kit push --force --verbose` of fixtures/drizzle-kit/schema.<dialect>.ts with `kit`; resolves its
 * output (the statements it ran) and exit code. Each database gets a first push before hilo creates anything:
 * a new table next to an unknown one makes drizzle-kit ask whether it is a rename, which needs a terminal.
 */
async function pushRun(
  kit: Kit,
  dialect: 'postgresql' | 'mysql' | 'sqlite',
  url: string,
  options: { tables?: string; schemas?: string; hints?: object[] } = {},
): Promise<{ output: string; exitCode: number }> {
  const env = {
    ...process.env,
    KIT_DIALECT: dialect,
    KIT_URL: url,
    KIT_TABLES_FILTER: options.tables ?? '',
    KIT_SCHEMA_FILTER: options.schemas ?? '',
    NODE_COMPILE_CACHE: compileCache,
  };
  const args = [
    join(folders.get(kit)!, 'node_modules', 'drizzle-kit', 'bin.cjs'),
    'push',
    '--force',
    '--verbose',
    '--config',
    'drizzle.config.ts',
  ];
  const hints = [...(dialect === 'mysql' ? kit.mysqlHints : []), ...(options.hints ?? [])];
  if (hints.length > 0) args.push('--hints', JSON.stringify(hints));
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: folders.get(kit)!, env, maxBuffer: 16 << 20 });
    return { output: stdout + stderr, exitCode: 0 };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`, exitCode: failed.code };
  }
}

/** {@link pushRun} that must succeed; resolves its output. */
async function push(...args: Parameters<typeof pushRun>): Promise<string> {
  const { output, exitCode } = await pushRun(...args);
  expect({ exitCode, output }).toEqual({ exitCode: 0, output: expect.any(String) as unknown });
  return output;
}

/**
 * A push without a filter while the hi table holds rows. drizzle-kit 0.31 drops it at once under `--force`;
 * 1.0 first stops (exit code 2) and asks for the loss of its rows to be confirmed with `--hints`, leaving it in
 * place, and drops it once the user gives that hint. Resolves the output of the push that dropped it.
 */
async function pushDroppingHiTable(
  kit: Kit,
  dialect: 'mysql' | 'sqlite',
  url: string,
  tableExists: () => Promise<boolean>,
): Promise<string> {
  if (!kit.asksBeforeDroppingRows) return push(kit, dialect, url);
  const refused = await pushRun(kit, dialect, url);
  expect(refused.exitCode).toBe(2);
  expect(refused.output).toMatch(/Confirm data loss\s+\S+\s+table\s+\S*hilo_segments\s+non-empty table/);
  expect(await tableExists()).toBe(true);
  const asked = [...refused.output.matchAll(/^\s*(\{ "type": "confirm_data_loss".*\})\s*$/gm)].map(
    (match) => JSON.parse(match[1]!) as object,
  );
  expect(asked).toEqual([{ type: 'confirm_data_loss', kind: 'table', entity: [expect.any(String), 'hilo_segments'] }]);
  return push(kit, dialect, url, { hints: asked });
}

/** Keys of `notes` drawn by a fresh hilo (another process, after the push). */
async function keysAfterwards(options: Parameters<typeof hiloDrizzle>[0], count: number): Promise<number[]> {
  const hilo = hiloDrizzle(options);
  try {
    const keys: number[] = [];
    for (let i = 0; i < count; i++) keys.push(Number(await hilo.nextId('notes')));
    return keys;
  } finally {
    await hilo.close();
  }
}

/** Draws keys, pushes, draws again: hilo's objects survive and no key comes twice. */
async function keysSurvivePush(
  options: Parameters<typeof hiloDrizzle>[0],
  doPush: () => Promise<string>,
  objectGone: () => Promise<boolean>,
): Promise<void> {
  const before = await keysAfterwards(options, 25);
  const output = await doPush();
  expect(output).not.toMatch(/DROP (TABLE|SEQUENCE)[^;]*hilo/i);
  expect(await objectGone()).toBe(false);
  const after = await keysAfterwards(options, 25);
  expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));
}

for (const kit of kits) {
  describePostgres(`drizzle-kit ${kit.version} push and hilo on postgres`, (db: TestDatabase) => {
    beforeAll(() => push(kit, 'postgresql', db.url));
    const sequenceExists = async (schema: string): Promise<boolean> => {
      const [row] = await pgQuery(
        db.url,
        `select count(*)::int as n from pg_sequences where schemaname = '${schema}' and sequencename = 'notes_hilo_seq'`,
      );
      return row?.['n'] === 1;
    };

    it('drops a hilo sequence in the schema it manages (public), as the README warns', async () => {
      await keysAfterwards({ url: db.url, blockSize: 10 }, 3);
      expect(await sequenceExists('public')).toBe(true);
      expect(await push(kit, 'postgresql', db.url)).toMatch(/DROP SEQUENCE "public"\."notes_hilo_seq"/);
      expect(await sequenceExists('public')).toBe(false);
    });

    const createHiloSchema = () => pgQuery(db.url, 'create schema if not exists hilo');

    const ownSchema =
      "leaves hilo's objects alone in a schema of their own (`schema: 'hilo'`) with schemaFilter: ['public'], ";
    it(`${ownSchema}as the README sets`, async () => {
      await createHiloSchema();
      await keysSurvivePush(
        { url: db.url, blockSize: 10, schema: 'hilo' },
        () => push(kit, 'postgresql', db.url, { schemas: 'public' }),
        async () => !(await sequenceExists('hilo')),
      );
    });

    const without = kit.managesEverySchema
      ? "drops the schema of hilo's own too when schemaFilter is left unset (drizzle-kit 1.0 then manages every schema): " +
        'why the README sets it'
      : "leaves the schema of hilo's own alone when schemaFilter is left unset (drizzle-kit 0.31 then manages public only)";
    it(without, async () => {
      await createHiloSchema();
      await keysAfterwards({ url: db.url, blockSize: 10, schema: 'hilo' }, 3);
      expect(await sequenceExists('hilo')).toBe(true);
      const output = await push(kit, 'postgresql', db.url);
      if (kit.managesEverySchema) {
        expect(output).toMatch(/DROP SEQUENCE "hilo"\."notes_hilo_seq"/);
        expect(output).toMatch(/DROP SCHEMA "hilo"/);
        expect(await sequenceExists('hilo')).toBe(false);
      } else {
        expect(output).not.toMatch(/hilo"/);
        expect(await sequenceExists('hilo')).toBe(true);
      }
    });
  });

  describeMysql(`drizzle-kit ${kit.version} push and hilo on mysql`, (db: TestDatabase) => {
    beforeAll(() => push(kit, 'mysql', db.url));
    const tableExists = async (): Promise<boolean> => {
      const connection = await mysql.createConnection({ uri: db.url });
      try {
        const [rows] = await connection.query<mysql.RowDataPacket[]>(
          `select count(*) as n from information_schema.tables where table_schema = database() and table_name = 'hilo_segments'`,
        );
        return Number(rows[0]?.['n']) === 1;
      } finally {
        await connection.end();
      }
    };

    it('drops the hi table without a tablesFilter, as the README warns', async () => {
      await keysAfterwards({ url: db.url, blockSize: 10 }, 3);
      expect(await tableExists()).toBe(true);
      expect(await pushDroppingHiTable(kit, 'mysql', db.url, tableExists)).toMatch(/DROP TABLE `hilo_segments`/);
      expect(await tableExists()).toBe(false);
    });

    it("keeps the hi table with tablesFilter: ['!hilo_segments']", () =>
      keysSurvivePush(
        { url: db.url, blockSize: 10 },
        () => push(kit, 'mysql', db.url, { tables: '!hilo_segments' }),
        async () => !(await tableExists()),
      ));
  });

  describe(`drizzle-kit ${kit.version} push and hilo on a SQLite file`, () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-kit-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("keeps the hi table with tablesFilter: ['!hilo_segments'], and drops it without", async () => {
      const file = join(dir, 'app.db');
      await push(kit, 'sqlite', file);
      const tableExists = async (): Promise<boolean> => {
        const { default: Database } = await import('better-sqlite3');
        const database = new Database(file, { readonly: true });
        try {
          return (
            (
              database.prepare("select count(*) as n from sqlite_master where name = 'hilo_segments'").get() as {
                n: number;
              }
            ).n === 1
          );
        } finally {
          database.close();
        }
      };
      await keysSurvivePush(
        { url: `sqlite:${file}`, blockSize: 10 },
        () => push(kit, 'sqlite', file, { tables: '!hilo_segments' }),
        async () => !(await tableExists()),
      );
      expect(await pushDroppingHiTable(kit, 'sqlite', file, tableExists)).toMatch(/DROP TABLE `hilo_segments`/);
      expect(await tableExists()).toBe(false);
    });
  });
}
