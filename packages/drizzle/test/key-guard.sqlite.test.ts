// Issue 46, item 6: on SQLite a row inserted without a key (a table defined without hilo's `$defaultFn`, raw SQL)
// used to be stored with the next rowid, which is a key hilo hands out later, and the next verified start
// refused. hiloDrizzle() now installs hilo's key guard on the tables it is given (a BEFORE INSERT trigger, see
// hilo-core's sqlite-guard-default.ts): such an insert is an error naming the `$defaultFn`, and nothing is written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { hiloDrizzle, type HiLoDrizzle } from 'hilo-drizzle';

const dir = mkdtempSync(join(tmpdir(), 'hilo-drizzle-guard-'));
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

const open = (file: string, extra: { keyGuard?: boolean } = {}) =>
  hiloDrizzle({ url: `sqlite:${file}`, blockSize: 10, ...extra });

/** The application's tables: the key column with hilo's `$defaultFn`. */
const tablesOf = (hilo: HiLoDrizzle) => ({
  orders: sqliteTable('orders', {
    id: integer('id').primaryKey().$defaultFn(hilo.key('orders')),
    total: integer('total').notNull(),
  }),
  later: sqliteTable('later', { id: integer('id').primaryKey().$defaultFn(hilo.key('later')), note: text('note') }),
});
/** The same table defined elsewhere with the `$defaultFn` forgotten. */
const forgotten = sqliteTable('orders', { id: integer('id').primaryKey(), total: integer('total').notNull() });
const forgottenLater = sqliteTable('later', { id: integer('id').primaryKey(), note: text('note') });

/**
 * What SQLite said when `write` threw: Drizzle 1.0 wraps every query's error (DrizzleQueryError) and `db.run()`
 * always did, with SQLite's error as the cause. better-sqlite3's SqliteError is of another realm than this file's
 * Error once a Jest worker loaded it for an earlier file, so it is told by its code.
 */
function sqliteError(write: () => unknown): { code?: string; message: string } {
  let error: unknown;
  try {
    write();
  } catch (e) {
    error = e;
  }
  if (error === undefined) throw new Error('the write was not refused');
  let inner = error as { code?: string; message: string; cause?: unknown };
  while (inner.code === undefined && inner.cause !== undefined) inner = inner.cause as typeof inner;
  return inner;
}

const connection = (file: string) => {
  const client = new Database(file, { timeout: 10_000 });
  return { db: drizzle({ client }), close: () => client.close() };
};
const triggers = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select name from sqlite_master where type = 'trigger' order by name").all() as never[]).map(
      (r: { name: string }) => r.name,
    );
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

describe('hiloDrizzle() on SQLite guards the tables it is given against rows without a key', () => {
  it('an insert through a table whose $defaultFn was forgotten fails, naming it; nothing is written', async () => {
    const file = freshFile();
    const hilo = open(file);
    const { orders } = tablesOf(hilo);
    const app = connection(file);
    try {
      await hilo.warm([orders]);
      const error = sqliteError(() => app.db.insert(forgotten).values({ total: 5 }).run());
      expect(error.code).toBe('SQLITE_CONSTRAINT_TRIGGER');
      expect(error.message).toMatch(/^hilo: a row of segment 'orders' arrived without a key, so hilo is/);
      expect(error.message).toContain(`Install it with .$defaultFn(hilo.key('orders')) on the key column`);
      // raw SQL too
      expect(sqliteError(() => app.db.run(sql`insert into orders (total) values (6)`)).message).toMatch(
        /arrived without a key/,
      );
      expect(app.db.select().from(forgotten).all()).toEqual([]);
      // the hilo table gives keys as before
      app.db.insert(orders).values({ total: 7 }).run();
      expect(app.db.select().from(orders).all()).toEqual([{ id: 1, total: 7 }]);
    } finally {
      app.close();
      await hilo.close();
    }
  });

  it('guards a table passed to warm() whose key column lacks the $defaultFn (its primary key, segment = table)', async () => {
    const file = freshFile();
    const hilo = open(file);
    const app = connection(file);
    try {
      await hilo.warm([forgotten]);
      expect(triggers(file)).toEqual(['orders_hilo_key']);
      expect(sqliteError(() => app.db.insert(forgotten).values({ total: 5 }).run()).message).toMatch(
        /hilo\.key\('orders'\)/,
      );
      // the keys it would take with nextId() go in
      app.db
        .insert(forgotten)
        .values({ id: (await hilo.nextId(forgotten)) as number, total: 6 })
        .run();
      expect(app.db.select().from(forgotten).all()).toHaveLength(1);
    } finally {
      app.close();
      await hilo.close();
    }
  });

  it('leaves a table passed to warm() alone when its primary key has a default or autoIncrement of its own', async () => {
    const file = freshFile();
    const db = new Database(file);
    db.exec('create table counted (id integer primary key autoincrement, note text)');
    const counted = sqliteTable('counted', {
      id: integer('id').primaryKey({ autoIncrement: true }),
      note: text('note'),
    });
    db.exec('create table stamped (id text primary key, note text)');
    db.close();
    const stamped = sqliteTable('stamped', {
      id: text('id')
        .primaryKey()
        .$defaultFn(() => 'x'),
      note: text('note'),
    });
    const hilo = open(file);
    try {
      await hilo.warm([counted, stamped]);
      expect(triggers(file)).toEqual([]);
    } finally {
      await hilo.close();
    }
  });

  it('is installed once: restarts and several connections starting at once find it and write nothing', async () => {
    const file = freshFile();
    const first = open(file);
    await first.warm([tablesOf(first).orders]);
    const installed = schemaVersion(file);
    expect(triggers(file)).toEqual(['orders_hilo_key']);
    await first.close();
    const [a, b, c] = [open(file), open(file), open(file)];
    await Promise.all([a.warm([tablesOf(a).orders]), b.warm([tablesOf(b).orders])]);
    await c.warm([tablesOf(c).orders]);
    await Promise.all([a.close(), b.close(), c.close()]);
    expect(triggers(file)).toEqual(['orders_hilo_key']);
    expect(schemaVersion(file)).toBe(installed);
  });

  it('guards a table created after start at the next warm() or reservation', async () => {
    const file = freshFile();
    const hilo = open(file);
    const { orders, later } = tablesOf(hilo);
    const app = connection(file);
    try {
      // hilo knows both tables; `later` is created by a migration after start
      await hilo.warm([orders, later]);
      expect(triggers(file)).toEqual(['orders_hilo_key']);
      app.db.run(sql`create table later (id integer primary key, note text)`);
      // more keys than the block in hand (10): a reservation, which guards the new table first
      await hilo.ensure(later, 25);
      expect(triggers(file)).toEqual(['later_hilo_key', 'orders_hilo_key']);
      expect(sqliteError(() => app.db.insert(forgottenLater).values({ note: 'x' }).run()).message).toMatch(
        /segment 'later'/,
      );
      app.db.insert(later).values({ note: 'y' }).run();
      expect(app.db.select().from(later).all()).toHaveLength(1);
    } finally {
      app.close();
      await hilo.close();
    }
  });

  it('keyGuard: false installs nothing, and a key-less row takes a rowid as before', async () => {
    const file = freshFile();
    const hilo = open(file, { keyGuard: false });
    const app = connection(file);
    try {
      await hilo.warm([tablesOf(hilo).orders]);
      expect(triggers(file)).toEqual([]);
      app.db.insert(forgotten).values({ total: 5 }).run();
      expect(app.db.select().from(forgotten).all()).toEqual([{ id: 1, total: 5 }]);
    } finally {
      app.close();
      await hilo.close();
    }
  });
});
