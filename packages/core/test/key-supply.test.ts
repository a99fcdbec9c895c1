// openKeySupply as every adapter opens it (issue #48): a connection of the adapter's own (TypeORM's DataSource
// pool, MikroORM's settings) opened on first use and released at close, the ORM's `:memory:` SQLite database
// shared rather than opened again, a hi source of the user's, and tryNext() for hooks that cannot wait.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { connect, HiLoConfigurationError, memorySource, sqliteClient, type SqlClient } from 'hilo-core';
import { checkKeySupplyOptions, openKeySupply, type AdapterConnection, type KeySupply } from 'hilo-core/adapter-kit';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hilo-key-supply-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A SQLite file client and a record of what the supply did with it. */
async function fileConnection(name: string): Promise<{ client: SqlClient; released: string[] }> {
  const client = await connect(`sqlite:${join(dir, name)}`);
  return { client, released: [] };
}

describe("openKeySupply with the adapter's own connection (setup.connect)", () => {
  it('connects on first use, not at open, and releases what it opened after the generator closed', async () => {
    const { client, released } = await fileConnection('own.db');
    let opened = 0;
    const supply: KeySupply = openKeySupply(
      { blockSize: 10 },
      {
        owner: 'test()',
        connect: () => {
          opened++;
          return { client, release: () => released.push(`released, ${supply.current === undefined}`) };
        },
      },
    );
    expect(opened).toBe(0);
    expect(await (await supply.generator()).next('orders')).toBe(1n);
    expect(await (await supply.generator()).next('orders')).toBe(2n);
    expect(opened).toBe(1);
    await supply.close();
    expect(released).toEqual(['released, true']);
    // the generator closed first, on the open connection: it gave keys 3…10 back (SQLite's table source can prove
    // nobody reserved after it); and release closed nothing of the client here, which the test owns
    expect((await client.query('select next_value from hilo_segments')).rows).toEqual([{ next_value: 3 }]);
    await client.close();
  });

  it('tries a failed connection again at the next call, and leaves a connection the ORM owns open', async () => {
    const { client } = await fileConnection('retry.db');
    let attempts = 0;
    const supply = openKeySupply(
      {},
      {
        owner: 'test()',
        connect: (): AdapterConnection => {
          if (++attempts === 1) throw new Error('not up yet');
          return { client };
        },
      },
    );
    await expect(supply.generator()).rejects.toThrow('not up yet');
    expect(await (await supply.generator()).next('orders')).toBe(1n);
    expect(attempts).toBe(2);
    await supply.close();
    // no release given: the client stays open for its owner
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await client.close();
  });

  it("takes the user's client over its own connection, and refuses two of url, client, generator", async () => {
    const { client } = await fileConnection('given.db');
    let opened = 0;
    const connectOwn = (): AdapterConnection => {
      opened++;
      throw new Error('the adapter connection was opened');
    };
    const supply = openKeySupply({ client }, { owner: 'test()', connect: connectOwn });
    expect(await (await supply.generator()).next('orders')).toBe(1n);
    expect(opened).toBe(0);
    await supply.close();
    await client.close();
    expect(() =>
      openKeySupply({ client, url: 'sqlite::memory:' }, { owner: 'installHiLo()', connect: connectOwn }),
    ).toThrow(
      new HiLoConfigurationError(
        'installHiLo() takes at most one of `url`, `client` or `generator`, got 2; keep one, or leave them all ' +
          'out for a connection hilo opens by itself.',
      ),
    );
    expect(() => openKeySupply({}, { owner: 'hiloKysely()' })).toThrow(
      'hiloKysely() needs exactly one of `url`, `client` or `generator`, got 0',
    );
  });

  it("builds on a `source` function of the user's (sourceFunction) with the segments of the key columns", async () => {
    const { client } = await fileConnection('source.db');
    const built: SqlClient[] = [];
    const options = {
      blockSize: 3,
      warm: false,
      source: (on: SqlClient) => {
        built.push(on);
        return memorySource({ start: 1000n });
      },
    };
    const checks = {
      owner: 'installHiLo()',
      optionNames: new Set(['blockSize', 'source', 'warm']),
      sourceFunction: true,
    };
    // the adapter's own option (`warm`) is accepted, and not passed on to the generator (which would refuse it)
    const supply = openKeySupply(options as never, {
      ...checks,
      connect: () => ({ client }),
      limits: [{ segment: 'orders', blockSize: 5, maxKey: 2_147_483_647n }],
      generatorOptions: { keyType: 'number' },
    });
    const generator = await supply.generator();
    expect(built).toEqual([client]);
    expect(await generator.reserve('orders', 6)).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
    await supply.close();
    await client.close();
    // without sourceFunction, or with an option the adapter does not name, the same options are refused
    const connectOwn = (): AdapterConnection => ({ client });
    expect(() =>
      openKeySupply({ source: () => memorySource() } as never, { owner: 'hiloKysely()', connect: connectOwn }),
    ).toThrow(/Expected `source` to be "sequence" or "table", got /);
    expect(() => checkKeySupplyOptions({ ...options, keyGuard: false }, { ...checks, ownConnection: true })).toThrow(
      /Unknown option `keyGuard` for installHiLo\(\); expected one of `blockSize`, `source`, `warm`/,
    );
    expect(() => checkKeySupplyOptions({ source: 'list' }, { ...checks, ownConnection: true })).toThrow(
      'Expected `source` to be "sequence", "table" or a function (client) => HiSource, got "list".',
    );
    // two block sizes for one segment: refused when the supply is opened, before anything connects
    const limits = [
      { segment: 'orders', blockSize: 5, maxKey: 10n, where: 'A.id' },
      { segment: 'orders', blockSize: 7, maxKey: 10n, where: 'B.id' },
    ];
    expect(() => openKeySupply({}, { owner: 'test()', connect: connectOwn, limits })).toThrow(
      'Segment "orders" gets blockSize 5 from A.id and 7 from B.id',
    );
  });
});

describe("openKeySupply on the ORM's in-memory SQLite database", () => {
  /** An ORM's `:memory:` database holding `orders` row 41, read through its own connection. */
  function ormDatabase() {
    const db = new DatabaseSync(':memory:');
    db.exec('create table orders (id integer primary key); insert into orders (id) values (41)');
    const query = (sql: string, params: readonly unknown[]) =>
      Promise.resolve(db.prepare(sql).all(...(params as never[])) as Record<string, unknown>[]);
    return { db, owner: {}, query };
  }
  const columns = [{ segment: 'orders', table: 'orders', column: 'id' }];

  it('counts in this process above the stored keys, one counter per database, through every supply on it', async () => {
    const { db, owner, query } = ormDatabase();
    const inMemory: AdapterConnection = { inMemory: { owner, query, database: 'The test database' } };
    const first = openKeySupply({ blockSize: 10 }, { owner: 'test()', columns, connect: () => inMemory });
    expect(await (await first.generator()).next('orders')).toBe(42n);
    await first.close();
    // a second installation on the same database goes on where the first stopped, never back
    const second = openKeySupply({ blockSize: 10 }, { owner: 'test()', columns, connect: () => inMemory });
    expect(await (await second.generator()).next('orders')).toBeGreaterThan(42n);
    await second.close();
    // no hi table was created in the ORM's database
    expect(db.prepare("select name from sqlite_master where name like 'hilo%'").all()).toEqual([]);
    db.close();
  });

  it('refuses the hi source layout options, naming them and the database', async () => {
    const { db, owner, query } = ormDatabase();
    const supply = openKeySupply(
      { table: 'hi', create: false },
      { owner: 'installHiLo()', columns, connect: () => ({ inMemory: { owner, query, database: 'The DataSource' } }) },
    );
    await expect(supply.generator()).rejects.toThrow(
      'The DataSource is in memory (":memory:"), where hilo keeps the counter in this process and ignores ' +
        '`table`, `create`; remove those options from installHiLo()',
    );
    await supply.close();
    db.close();
  });
});

describe('KeySupply.tryNext', () => {
  it('starts connecting when nothing is in hand, then draws from memory; nothing after close', async () => {
    const client = sqliteClient(new DatabaseSync(':memory:'), { ownsDatabase: true });
    let opened = 0;
    const supply = openKeySupply(
      { blockSize: 4, prefetchAt: false },
      {
        owner: 'test()',
        connect: () => {
          opened++;
          return { client, release: () => client.close() };
        },
      },
    );
    expect(supply.tryNext('orders')).toBeUndefined();
    expect(opened).toBe(1);
    // the first call started the connection and the segment's first reservation: wait for it, not for a sleep
    await (await supply.generator()).ensure('orders', 1);
    expect(supply.tryNext('orders')).toBe(1n);
    expect([supply.tryNext('orders'), supply.tryNext('orders'), supply.tryNext('orders')]).toEqual([2n, 3n, 4n]);
    // the block is empty: undefined, and the next reservation is under way
    expect(supply.tryNext('orders')).toBeUndefined();
    await (await supply.generator()).ensure('orders', 1);
    expect(supply.tryNext('orders')).toBe(5n);
    await supply.close();
    expect(supply.tryNext('orders')).toBeUndefined();
    expect(opened).toBe(1);
  });
});
