// The adapter kit's conversions and segment rules: every adapter (TypeORM, Prisma, MikroORM, Drizzle,
// Kysely) calls these, so a fix here reaches all of them.
import { createHiLoGenerator, HiLoOverflowError, memorySource } from 'hilo-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'hilo-core';
import {
  BIGINT_MAX,
  columnTypeMaxKey,
  keyToField,
  objectMark,
  openKeySupply,
  ownGenerator,
  refuseLayoutInMemory,
  segmentsForColumns,
} from 'hilo-core/adapter-kit';

describe('keyToField', () => {
  it('converts a key to the field type', () => {
    expect(keyToField(5n, 'number', 'orders.id')).toBe(5);
    expect(keyToField(5, 'bigint', 'orders.id')).toBe(5n);
    expect(keyToField(5n, 'string', 'orders.id')).toBe('5');
  });

  it("refuses a key above the column maximum, naming the field and the adapter's own remedy", () => {
    const limits = { maxKey: 2_147_483_647n, column: 'an Int', widen: 'make the field BigInt' };
    expect(keyToField(2_147_483_647n, 'number', 'Profile.id', limits)).toBe(2_147_483_647);
    expect(() => keyToField(2_147_483_648n, 'number', 'Profile.id', limits)).toThrow(HiLoOverflowError);
    expect(() => keyToField(2_147_483_648n, 'bigint', 'Profile.id', limits)).toThrow(
      'Key 2147483648 does not fit Profile.id, an Int (at most 2147483647); make the field BigInt.',
    );
  });

  it("refuses a key a number field would round, with the adapter's way to declare a bigint", () => {
    const big = 2n ** 53n;
    expect(keyToField(big, 'bigint', 'Order.id')).toBe(big);
    expect(() => keyToField(big, 'number', 'Order.id', { asBigint: "declare it with keyType: 'bigint'" })).toThrow(
      'Key 9007199254740992 for Order.id is beyond Number.MAX_SAFE_INTEGER and cannot be held as a ' +
        "number; declare it with keyType: 'bigint'.",
    );
  });
});

describe('segmentsForColumns', () => {
  it('stops each segment at its narrowest column and keeps the block size a column declares', () => {
    expect(
      segmentsForColumns([
        { segment: 'orders', maxKey: 2n ** 63n - 1n },
        { segment: 'orders', blockSize: 50, maxKey: 2_147_483_647n },
        { segment: 'items', maxKey: 2n ** 63n - 1n },
      ]),
    ).toEqual({ orders: { blockSize: 50, maxKey: 2_147_483_647n }, items: { maxKey: 2n ** 63n - 1n } });
  });

  it('lowers a column maximum to the maxKey the user set, per segment before global, and keeps their other segment options', () => {
    const user = { maxKey: 1000, segments: { orders: { maxKey: 10n, maxBlockSize: 64 }, other: { blockSize: 7 } } };
    expect(
      segmentsForColumns(
        [
          { segment: 'orders', maxKey: 2_147_483_647n },
          { segment: 'items', maxKey: 2_147_483_647n },
        ],
        user,
      ),
    ).toEqual({
      orders: { maxKey: 10n, maxBlockSize: 64 },
      items: { maxKey: 1000n },
      other: { blockSize: 7 },
    });
  });

  it('leaves a malformed user maxKey for the generator to refuse by name', () => {
    const segments = segmentsForColumns([{ segment: 'orders', maxKey: 100n }], { maxKey: -1 });
    expect(segments).toEqual({ orders: { maxKey: 100n } });
    expect(() => createHiLoGenerator({ source: memorySource(), maxKey: -1, segments })).toThrow(/`maxKey`/);
  });
});

describe('ownGenerator', () => {
  it('releases what the adapter opened when building the generator throws, and rethrows', async () => {
    const released: string[] = [];
    const failure = new Error('no such source');
    await expect(
      ownGenerator(
        () => {
          throw failure;
        },
        () => released.push('pool'),
      ),
    ).rejects.toBe(failure);
    expect(released).toEqual(['pool']);
  });

  it('closes the generator first (its unused keys go back while the pool is open), then releases, even when closing fails', async () => {
    const order: string[] = [];
    const generator = createHiLoGenerator({ source: memorySource() });
    const owned = await ownGenerator(
      () => generator,
      () => order.push('release'),
    );
    expect(owned.generator).toBe(generator);
    const close = generator.close.bind(generator);
    generator.close = async () => {
      await close();
      order.push('generator closed');
      throw new Error('close failed');
    };
    await expect(owned.close()).rejects.toThrow('close failed');
    expect(order).toEqual(['generator closed', 'release']);
  });
});

describe('columnTypeMaxKey', () => {
  it('gives the largest value of each signed integer column type, whatever its spelling', () => {
    expect(columnTypeMaxKey('int')).toBe(2_147_483_647n);
    expect(columnTypeMaxKey('INTEGER')).toBe(2_147_483_647n);
    expect(columnTypeMaxKey('int4')).toBe(2_147_483_647n);
    expect(columnTypeMaxKey('int(11)')).toBe(2_147_483_647n);
    expect(columnTypeMaxKey('smallint')).toBe(32_767n);
    expect(columnTypeMaxKey('int2')).toBe(32_767n);
    expect(columnTypeMaxKey('tinyint')).toBe(127n);
    expect(columnTypeMaxKey('mediumint')).toBe(8_388_607n);
    expect(columnTypeMaxKey(' BigInt ')).toBe(2n ** 63n - 1n);
    expect(columnTypeMaxKey('int8')).toBe(BIGINT_MAX);
  });

  it('knows no maximum for a type that is not a signed integer, nor for inherited object keys', () => {
    expect(columnTypeMaxKey('decimal(20,0)')).toBeUndefined();
    expect(columnTypeMaxKey('text')).toBeUndefined();
    expect(columnTypeMaxKey('constructor')).toBeUndefined();
    expect(columnTypeMaxKey('toString')).toBeUndefined();
  });
});

describe('openKeySupply passes the hi source layout through', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-kit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps `strategy` and `table`: the range strategy stores the highest key handed out', async () => {
    const url = `sqlite:${join(dir, 'range.db')}`;
    const supply = openKeySupply(
      { url, source: 'table', table: 'kit_hi', strategy: 'range', blockSize: 10, adaptive: false, prefetchAt: false },
      'test()',
    );
    expect(await (await supply.generator()).next('orders')).toBe(1n);
    const reader = await connect(url);
    try {
      // range: the stored value is the last key of the block (pooled-lo would store 11, the next block's first)
      expect((await reader.query('SELECT next_value FROM kit_hi WHERE segment = ?', ['orders'])).rows).toEqual([
        { next_value: 10 },
      ]);
    } finally {
      await supply.close();
      await reader.close();
    }
  });

  it('keeps `create: false`: a missing hi table is an error that says to run `hilo init`', async () => {
    const supply = openKeySupply({ url: `sqlite:${join(dir, 'empty.db')}`, create: false }, 'test()');
    try {
      await expect((await supply.generator()).next('orders')).rejects.toThrow(/hilo init/);
    } finally {
      await supply.close();
    }
  });
});

describe('openKeySupply verifies blocks against the tables it is given (verifyBlocks)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hilo-kit-verify-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A SQLite file whose orders table holds key 7 and whose hi row says the next block starts at 1. */
  async function storeBehind(name: string): Promise<string> {
    const url = `sqlite:${join(dir, name)}`;
    const client = await connect(url);
    try {
      await client.query('create table orders (id integer primary key)');
      await client.query('insert into orders (id) values (7)');
      await client.query('create table hilo_segments (segment varchar(255) primary key, next_value bigint not null)');
      await client.query("insert into hilo_segments (segment, next_value) values ('orders', 1)");
    } finally {
      await client.close();
    }
    return url;
  }
  const columns = [{ segment: 'orders', table: 'orders', column: 'id' }];

  it('refuses a store behind the given tables by default, and lifts it with onStoreBehind: lift', async () => {
    const url = await storeBehind('behind.db');
    const refusing = openKeySupply({ url, blockSize: 10, prefetchAt: false }, 'test()', {}, columns);
    try {
      await expect((await refusing.generator()).next('orders')).rejects.toMatchObject({ code: 'HILO_STORE_BEHIND' });
    } finally {
      await refusing.close();
    }
    // the refused attempt took the block 1…10 from the store: set it back again
    const client = await connect(url);
    await client.query("update hilo_segments set next_value = 1 where segment = 'orders'");
    await client.close();
    const lifting = openKeySupply({ url, blockSize: 10, onStoreBehind: 'lift' }, 'test()', {}, () => columns);
    try {
      // a store behind again: only a lift lets this one start
      expect(await (await lifting.generator()).next('orders')).toBeGreaterThan(7n);
    } finally {
      await lifting.close();
    }
  });

  it('trusts the store with verifyBlocks: false', async () => {
    const url = await storeBehind('trusted.db');
    const trusting = openKeySupply({ url, blockSize: 10, verifyBlocks: false }, 'test()', {}, columns);
    try {
      expect(await (await trusting.generator()).next('orders')).toBe(1n);
    } finally {
      await trusting.close();
    }
  });

  it('refuses verifyBlocks options that could not take effect, naming them', () => {
    const url = `sqlite:${join(dir, 'unused.db')}`;
    expect(() => openKeySupply({ url, verifyBlocks: 'yes' as never }, 'test()')).toThrow(
      /verifyBlocks.*true or false/s,
    );
    expect(() => openKeySupply({ url, verifyBlocks: false, onStoreBehind: 'lift' }, 'test()')).toThrow(
      /test\(\) got `onStoreBehind: "lift"` with `verifyBlocks: false`/,
    );
    const generator = createHiLoGenerator({ source: memorySource() });
    expect(() => openKeySupply({ generator, onStoreBehind: 'lift' }, 'test()')).toThrow(
      /got `generator` and `onStoreBehind`.*createHiLo/,
    );
  });
});

describe('refuseLayoutInMemory', () => {
  it('names every layout option set and where it was set; other options pass', () => {
    expect(() =>
      refuseLayoutInMemory({ table: 't', create: false, blockSize: 5 }, 'The SQLite database', 'setup()'),
    ).toThrow(
      'The SQLite database is in memory (":memory:"), where hilo keeps the counter in this process ' +
        'and ignores `table`, `create`; remove those options from setup(), or use a database file',
    );
    expect(() =>
      refuseLayoutInMemory({ blockSize: 5, source: undefined }, 'The SQLite database', 'setup()'),
    ).not.toThrow();
  });
});

describe('objectMark', () => {
  class Entity {
    id = 1;
    name = 'a';
  }

  it('marks an object where nothing but the mark sees it, and clears the mark', () => {
    const fresh = objectMark<number>();
    const entity = new Entity();
    expect(fresh.get(entity)).toBeUndefined();
    expect(fresh.set(entity, 7)).toBe(true);
    expect(fresh.get(entity)).toBe(7);
    expect(Object.keys(entity)).toEqual(['id', 'name']);
    expect(Object.getOwnPropertySymbols(entity)).toEqual([]);
    expect(Reflect.ownKeys(entity)).toEqual(['id', 'name']);
    expect(JSON.stringify(entity)).toBe('{"id":1,"name":"a"}');
    expect(entity).toEqual(new Entity());
    expect(entity).toStrictEqual(new Entity());
    expect(fresh.get({ ...entity })).toBeUndefined();
    expect(fresh.get(Object.assign(new Entity(), entity))).toBeUndefined();
    expect(fresh.get(structuredClone(entity))).toBeUndefined();
    expect(fresh.set(entity, 8)).toBe(true);
    expect(fresh.get(entity)).toBe(8);
    expect(fresh.set(entity, undefined)).toBe(true);
    expect(fresh.get(entity)).toBeUndefined();
  });

  it('keeps marks apart: each call is a mark of its own', () => {
    const one = objectMark<string>();
    const other = objectMark<string>();
    const entity = { id: 1 };
    one.set(entity, 'one');
    expect(other.get(entity)).toBeUndefined();
    other.set(entity, 'other');
    expect([one.get(entity), other.get(entity)]).toEqual(['one', 'other']);
  });

  it('clearing an unmarked object adds nothing, and a Proxy is marked itself, not its target', () => {
    const fresh = objectMark<number>();
    const plain = { id: 1 };
    expect(fresh.set(plain, undefined)).toBe(true);
    expect(fresh.get(plain)).toBeUndefined();
    const target = { id: 2 };
    const proxy = new Proxy(target, {});
    expect(fresh.set(proxy, 3)).toBe(true);
    expect(fresh.get(proxy)).toBe(3);
    expect(fresh.get(target)).toBeUndefined();
  });
});
