// `drizzle-kit push` brings the database in line with the application's Drizzle schema, and drops what the
// schema does not declare: hilo's sequences and hi table among them. A recreated sequence or hi table could
// hand out keys that blocks held in memory by running processes still cover. These tests run the real
// drizzle-kit CLI on each database: without the README's setting it drops hilo's objects (why the setting is
// needed), and with it keeps them, so that keys continue above every key handed out before the push.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describeMysql, describePostgres, type TestDatabase } from '@hilo/testing';
import { hiloDrizzle } from 'hilo-drizzle';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures', 'drizzle-kit');
const kit = join(here, '..', 'node_modules', 'drizzle-kit', 'bin.cjs');

/**
 * `drizzle-kit push --force --verbose` of fixtures/drizzle-kit/schema.<dialect>.ts; resolves its output (the
 * statements it ran). Each database gets a first push before hilo creates anything: a new table next to an
 * unknown one makes drizzle-kit ask whether it is a rename, which needs a terminal.
 */
async function push(dialect: 'postgresql' | 'mysql' | 'sqlite', url: string, tablesFilter?: string): Promise<string> {
  const env = { ...process.env, KIT_DIALECT: dialect, KIT_URL: url, KIT_TABLES_FILTER: tablesFilter ?? '' };
  const { stdout, stderr } = await run(process.execPath, [kit, 'push', '--force', '--verbose', '--config', 'drizzle.config.ts'], { cwd: fixtures, env, maxBuffer: 16 << 20 });
  return stdout + stderr;
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
async function keysSurvivePush(options: Parameters<typeof hiloDrizzle>[0], doPush: () => Promise<string>, objectGone: () => Promise<boolean>): Promise<void> {
  const before = await keysAfterwards(options, 25);
  const output = await doPush();
  expect(output).not.toMatch(/DROP (TABLE|SEQUENCE)[^;]*hilo/i);
  expect(await objectGone()).toBe(false);
  const after = await keysAfterwards(options, 25);
  expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));
}

describePostgres('drizzle-kit push and hilo on postgres', (db: TestDatabase) => {
  beforeAll(async () => {
    await push('postgresql', db.url);
    await run('psql', [db.url, '-c', 'create schema hilo']);
  });
  const sequenceExists = async (schema: string): Promise<boolean> => {
    const { stdout } = await run('psql', [db.url, '-Atc', `select count(*) from pg_sequences where schemaname = '${schema}' and sequencename = 'notes_hilo_seq'`]);
    return stdout.trim() === '1';
  };

  it('drops a hilo sequence in the schema it manages (public), as the README warns', async () => {
    await keysAfterwards({ url: db.url, blockSize: 10 }, 3);
    expect(await sequenceExists('public')).toBe(true);
    expect(await push('postgresql', db.url)).toMatch(/DROP SEQUENCE "public"\."notes_hilo_seq"/);
    expect(await sequenceExists('public')).toBe(false);
  });

  it("leaves hilo's objects alone in a schema of their own (`schema: 'hilo'`), outside drizzle-kit's schemaFilter", () =>
    keysSurvivePush({ url: db.url, blockSize: 10, schema: 'hilo' }, () => push('postgresql', db.url), async () => !(await sequenceExists('hilo'))));
});

describeMysql('drizzle-kit push and hilo on mysql', (db: TestDatabase) => {
  beforeAll(() => push('mysql', db.url));
  const tableExists = async (): Promise<boolean> => {
    const name = new URL(db.url).pathname.slice(1);
    const { stdout } = await run('mysql', ['-h', '127.0.0.1', '-u', 'root', '-N', '-e', `select count(*) from information_schema.tables where table_schema = '${name}' and table_name = 'hilo_segments'`]);
    return stdout.trim() === '1';
  };

  it('drops the hi table without a tablesFilter, as the README warns', async () => {
    await keysAfterwards({ url: db.url, blockSize: 10 }, 3);
    expect(await tableExists()).toBe(true);
    expect(await push('mysql', db.url)).toMatch(/DROP TABLE `hilo_segments`/);
    expect(await tableExists()).toBe(false);
  });

  it("keeps the hi table with tablesFilter: ['!hilo_segments']", () =>
    keysSurvivePush({ url: db.url, blockSize: 10 }, () => push('mysql', db.url, '!hilo_segments'), async () => !(await tableExists())));
});

describe('drizzle-kit push and hilo on a SQLite file', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-kit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the hi table with tablesFilter: ['!hilo_segments'], and drops it without", async () => {
    const file = join(dir, 'app.db');
    await push('sqlite', file);
    const tableExists = async (): Promise<boolean> => {
      const { default: Database } = await import('better-sqlite3');
      const database = new Database(file, { readonly: true });
      try {
        return (database.prepare("select count(*) as n from sqlite_master where name = 'hilo_segments'").get() as { n: number }).n === 1;
      } finally {
        database.close();
      }
    };
    await keysSurvivePush({ url: `sqlite:${file}`, blockSize: 10 }, () => push('sqlite', file, '!hilo_segments'), async () => !(await tableExists()));
    expect(await push('sqlite', file)).toMatch(/DROP TABLE `hilo_segments`/);
    expect(await tableExists()).toBe(false);
  });
});
