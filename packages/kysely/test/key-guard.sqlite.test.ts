// Issue 46, item 6: on SQLite a row inserted without a key (a Kysely created without `plugins: [hilo.plugin]`, raw
// SQL) used to be stored with the next rowid, which is a key hilo hands out later, and the next verified start
// refused. hiloKysely() now installs hilo's key guard there by default (a BEFORE INSERT trigger, see
// hilo-core's sqlite-guard-default.ts): such an insert is an error naming the plugin, and nothing is written.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createHiLoGenerator, memorySource } from 'hilo-core';
import { hiloKysely, type HiLoKysely } from 'hilo-kysely';
import { Kysely, SqliteDialect, sql } from 'kysely';

interface DB {
  orders: { id: number | null; total: number };
  later: { id: number | null; note: string };
}

/** Starts hilo in a process of its own on `file` (test/child/key-guard-worker.ts); resolves with what it printed. */
function startProcess(file: string): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--no-warnings', join(here, 'child', 'key-guard-worker.ts'), file],
    {
      env: { ...process.env, TSX_TSCONFIG_PATH: join(here, 'child', 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`key-guard-worker failed (${code ?? signal}): ${err}`));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'hilo-kysely-guard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A fresh database file with the orders table, as the application's migrations would leave it. */
function freshFile(): string {
  const file = join(dir, `shop-${++files}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('create table orders (id integer primary key, total integer not null)');
  db.close();
  return file;
}

/** A Kysely of the application's own, on its own connection; with hilo's plugin only when given. */
function kysely(file: string, hilo?: HiLoKysely): Kysely<DB> {
  const database = new Database(file, { timeout: 10_000 });
  return new Kysely<DB>({ dialect: new SqliteDialect({ database }), plugins: hilo ? [hilo.plugin] : [] });
}

const open = (file: string, extra: { keyGuard?: boolean } = {}) =>
  hiloKysely({ url: `sqlite:${file}`, blockSize: 10, tables: { orders: true, later: true }, ...extra });

const triggers = (file: string): Array<{ name: string; tbl_name: string }> => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("select name, tbl_name from sqlite_master where type = 'trigger' order by name").all() as never;
  } finally {
    db.close();
  }
};
const schemaVersion = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('schema_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('hiloKysely() on SQLite guards its tables against rows without a key', () => {
  it('a Kysely without the plugin fails on its first key-less insert, naming the plugin; nothing is written', async () => {
    const file = freshFile();
    const hilo = open(file);
    await hilo.warm();
    const plain = kysely(file);
    try {
      const error = await plain
        .insertInto('orders')
        .values({ total: 5 })
        .execute()
        .catch((e: unknown) => e);
      // SQLite's own error (better-sqlite3's SqliteError, of another realm than this file's Error under Jest)
      expect(error).toHaveProperty('code', 'SQLITE_CONSTRAINT_TRIGGER');
      expect((error as Error).message).toMatch(
        /^hilo: a row of segment 'orders' arrived without a key, so hilo is not installed/,
      );
      expect((error as Error).message).toContain('Install it with new Kysely({ dialect, plugins: [hilo.plugin] })');
      // raw SQL and an explicit NULL are refused the same way
      await expect(sql`insert into orders (total) values (6)`.execute(plain)).rejects.toThrow(
        /plugins: \[hilo\.plugin\]/,
      );
      await expect(plain.insertInto('orders').values({ id: null, total: 7 }).execute()).rejects.toThrow(
        /arrived without a key/,
      );
      expect(await plain.selectFrom('orders').selectAll().execute()).toEqual([]);
      // a key given by the application still goes in
      await plain.insertInto('orders').values({ id: 1000, total: 8 }).execute();
    } finally {
      await plain.destroy();
      await hilo.close();
    }
  });

  it('with the plugin installed, inserts get hilo keys; the next start verifies and keeps going', async () => {
    const file = freshFile();
    const hilo = open(file);
    const db = kysely(file, hilo);
    try {
      await hilo.warm();
      expect(triggers(file)).toEqual([{ name: 'orders_hilo_key', tbl_name: 'orders' }]);
      await db
        .insertInto('orders')
        .values([{ total: 1 }, { total: 2 }])
        .execute();
      const rows = await db.selectFrom('orders').select('id').orderBy('id').execute();
      expect(rows.map((r) => r.id)).toEqual([1, 2]);
    } finally {
      await db.destroy();
      await hilo.close();
    }
    const again = open(file);
    const db2 = kysely(file, again);
    try {
      await again.warm();
      await db2.insertInto('orders').values({ total: 3 }).execute();
      expect(await db2.selectFrom('orders').select('id').execute()).toHaveLength(3);
    } finally {
      await db2.destroy();
      await again.close();
    }
  });

  it('is installed once: restarts and several connections starting at once find it and write nothing', async () => {
    const file = freshFile();
    const first = open(file);
    await first.warm();
    const installed = schemaVersion(file);
    expect(triggers(file)).toEqual([{ name: 'orders_hilo_key', tbl_name: 'orders' }]);
    await first.close();
    // three more starts, two of them at the same time (each hiloKysely has its own connection to the file)
    const [a, b] = [open(file), open(file)];
    await Promise.all([a.warm(), b.warm()]);
    const c = open(file);
    await c.warm();
    await Promise.all([a.close(), b.close(), c.close()]);
    expect(triggers(file)).toEqual([{ name: 'orders_hilo_key', tbl_name: 'orders' }]);
    // nothing was replaced: the schema (and every connection's prepared statements) stayed as it was
    expect(schemaVersion(file)).toBe(installed);
  });

  it('several processes starting at once on one file leave one guard, and a later start writes nothing', async () => {
    const file = freshFile();
    expect(await Promise.all([startProcess(file), startProcess(file)])).toEqual(['started', 'started']);
    expect(triggers(file)).toEqual([{ name: 'orders_hilo_key', tbl_name: 'orders' }]);
    const installed = schemaVersion(file);
    await startProcess(file);
    expect(schemaVersion(file)).toBe(installed);
    const plain = kysely(file);
    try {
      await expect(plain.insertInto('orders').values({ total: 1 }).execute()).rejects.toThrow(
        /plugins: \[hilo\.plugin\]/,
      );
    } finally {
      await plain.destroy();
    }
  }, 60_000);

  it('guards a table created (or rebuilt) after start at the next reservation', async () => {
    const file = freshFile();
    const hilo = open(file);
    const plain = kysely(file);
    try {
      await hilo.warm();
      // a migration run while the application is up
      await sql`create table later (id integer primary key, note text not null)`.execute(plain);
      // more keys than the block in hand (10): a reservation, which guards the new table first
      await hilo.ensure('later', 25);
      expect(triggers(file).map((t) => t.name)).toEqual(['later_hilo_key', 'orders_hilo_key']);
      await expect(plain.insertInto('later').values({ note: 'x' }).execute()).rejects.toThrow(
        /segment 'later' arrived without a key.*plugins: \[hilo\.plugin\]/,
      );
      expect(await plain.selectFrom('later').selectAll().execute()).toEqual([]);
      // a table rebuilt by a migration (drop and create, as drizzle-kit and TypeORM do on SQLite) loses its trigger:
      // the next reservation puts it back
      await sql`drop table later`.execute(plain);
      await sql`create table later (id integer primary key, note text not null)`.execute(plain);
      expect(triggers(file).map((t) => t.name)).toEqual(['orders_hilo_key']);
      await hilo.ensure('later', 60);
      expect(triggers(file).map((t) => t.name)).toEqual(['later_hilo_key', 'orders_hilo_key']);
    } finally {
      await plain.destroy();
      await hilo.close();
    }
  });

  it('keyGuard: false installs nothing, and a key-less row takes a rowid as before', async () => {
    const file = freshFile();
    const hilo = open(file, { keyGuard: false });
    const plain = kysely(file);
    try {
      await hilo.warm();
      expect(triggers(file)).toEqual([]);
      await plain.insertInto('orders').values({ total: 5 }).execute();
      expect(await plain.selectFrom('orders').select('id').execute()).toEqual([{ id: 1 }]);
    } finally {
      await plain.destroy();
      await hilo.close();
    }
  });

  it('refuses a keyGuard that is not a boolean, and keyGuard beside a generator it could not install with', () => {
    expect(() => hiloKysely({ url: 'sqlite:x.db', tables: { orders: true }, keyGuard: 'yes' as never })).toThrow(
      /`keyGuard`/,
    );
    expect(() =>
      hiloKysely({
        generator: createHiLoGenerator({ source: memorySource() }),
        tables: { orders: true },
        keyGuard: true,
      }),
    ).toThrow(/`generator` and `keyGuard`.*ensureKeyGuard/s);
  });
});
