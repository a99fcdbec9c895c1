// Issue 46, item 3: `as: 'string'` keys in a text column (PostgreSQL text, MariaDB varchar, SQLite text) are
// verified as numbers: saves crossing 9→10, 99→100 and 999→1000 raise no false HILO_STORE_BEHIND, a hi store set
// back below the rows is refused (or lifted) as with integer keys, and a new hi store starts above the rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { describeDatabase, randomName } from '@hilo/testing';
import { HiLoStoreBehindError, connect, type SqlClient } from 'hilo-core';
import { hiloKysely, type HiLoKysely } from 'hilo-kysely';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type MysqlDialectConfig } from 'kysely';

type Kind = 'postgres' | 'mysql' | 'sqlite';

interface NotesDatabase {
  [table: string]: { id: string; body: string };
}

function suite(kind: Kind, url: () => string): void {
  let client: SqlClient;
  let db: Kysely<NotesDatabase>;
  const opened: HiLoKysely[] = [];
  beforeAll(async () => {
    client = await connect(kind === 'sqlite' ? `sqlite:${url()}` : url());
    const pool = kind === 'postgres' ? new pg.Pool({ connectionString: url(), max: 2 }) : undefined;
    // an idle connection ended by the server (another suite's fault injection) is no failure of this one
    pool?.on('error', () => undefined);
    db = new Kysely<NotesDatabase>({
      dialect:
        pool !== undefined
          ? new PostgresDialect({ pool })
          : kind === 'mysql'
            ? new MysqlDialect({
                // Kysely 0.27's pool type predates mysql2's current one; the shape is the same (support/shop.ts)
                // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under Kysely 0.27 (kysely-compat)
                pool: createMysqlPool({ uri: url(), connectionLimit: 2 }) as unknown as MysqlDialectConfig['pool'],
              })
            : new SqliteDialect({ database: new Database(url()) }),
    });
  });
  afterAll(async () => {
    for (const hilo of opened) await hilo.close();
    await db?.destroy();
    await client?.close();
  });

  async function fresh(type = kind === 'mysql' ? 'varchar(40)' : 'text'): Promise<{ table: string; hi: string }> {
    const table = randomName('notes');
    await client.query(`create table ${table} (id ${type} primary key, body text)`);
    return { table, hi: `${table}_hi` };
  }

  function open(table: string, hi: string, more: { onStoreBehind?: 'lift' } = {}): HiLoKysely {
    const hilo = hiloKysely({
      url: kind === 'sqlite' ? `sqlite:${url()}` : url(),
      source: 'table',
      table: hi,
      blockSize: 100,
      adaptive: false,
      prefetchAt: false,
      tables: { [table]: { as: 'string' } },
      ...more,
    });
    opened.push(hilo);
    return hilo;
  }

  /** Saves `rows` rows through the plugin, one block of 100 at a time (each block probed after the last is stored). */
  async function save(hilo: HiLoKysely, table: string, rows: number): Promise<void> {
    const withPlugin = db.withPlugin(hilo.plugin);
    for (let done = 0; done < rows; done += 100) {
      const batch = Math.min(100, rows - done);
      await hilo.ensure(table, batch);
      await withPlugin
        .insertInto(table)
        .values(Array.from({ length: batch }, () => ({ body: 'x' }) as never))
        .execute();
    }
  }

  it('saves across 9→10, 99→100 and 999→1000 raise no false alarm; a set-back store is refused, or lifted', async () => {
    const { table, hi } = await fresh();
    const hilo = open(table, hi);
    await save(hilo, table, 1010);
    const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${table}`);
    expect(Number(rows[0]!.n)).toBe(1010);
    await hilo.close();

    // the hi row set back to 1000: the rows hold up to 1010
    await client.query(`update ${hi} set next_value = 1000 where segment = '${table}'`);
    const behind = open(table, hi);
    const error = await behind.nextId(table).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoStoreBehindError);
    expect((error as HiLoStoreBehindError).storedKey).toBe(1010n);
    await behind.close();

    const emitWarning = process.emitWarning;
    process.emitWarning = () => undefined;
    try {
      const lifted = open(table, hi, { onStoreBehind: 'lift' });
      expect(BigInt(await lifted.nextId(table))).toBeGreaterThan(1010n);
      await lifted.close();
    } finally {
      process.emitWarning = emitWarning;
    }
  }, 60_000);

  // Issue 52, item 4: on MariaDB (varchar(20)) the probe of a running process's next block missed a row a peer stored
  // there (its parameters came in another order than its `?` placeholders): 1 duplicate-key failure, 0 with bigint
  it('a running process refuses its next block when a peer stored a key in it, for a text key as for bigint', async () => {
    const types = [kind === 'mysql' ? 'varchar(20)' : 'text', 'bigint'];
    for (const type of types) {
      const { table, hi } = await fresh(type);
      const hilo = open(table, hi);
      await save(hilo, table, 100); // keys 1…100: the hi row is now at 101
      await client.query(`insert into ${table} (id, body) values ('105', 'peer')`);
      const error = await save(hilo, table, 100).catch((e: unknown) => e);
      expect([type, error]).toEqual([type, expect.any(HiLoStoreBehindError)]);
      expect((error as HiLoStoreBehindError).storedKey).toBe(105n);
      const { rows } = await client.query<{ n: unknown }>(`select count(*) as n from ${table}`);
      expect(Number(rows[0]!.n)).toBe(101); // no row of the second save written, none failed on a duplicate
      await hilo.close();
    }
  }, 60_000);

  it('a new hi store starts above the stored string keys', async () => {
    const { table, hi } = await fresh();
    await client.query(`insert into ${table} (id, body) values ('9', 'a'), ('10', 'b'), ('100', 'c'), ('99', 'd')`);
    const hilo = open(table, hi);
    expect(await hilo.nextId(table)).toBe('101');
    await hilo.close();
  });
}

describeDatabase('postgres', 'hilo-kysely as: string on PostgreSQL text keys', (db) => suite('postgres', () => db.url));
describeDatabase('mysql', 'hilo-kysely as: string on MariaDB varchar keys', (db) => suite('mysql', () => db.url));
describe('hilo-kysely as: string on SQLite text keys', () => {
  const folder = mkdtempSync(join(tmpdir(), 'hilo-kysely-strings-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  suite('sqlite', () => join(folder, 'notes.db'));
});
