// The engine side of verified blocks (issue 39) and maxKey, over a memory source and stored keys kept in a Set:
// what runs when, in what order, and what is refused. The SQL side runs on real databases in verified-blocks.*.test.ts.
import {
  createHiLoGenerator,
  HiLoConfigurationError,
  HiLoKeyLimitError,
  HiLoStoreBehindError,
  memorySource,
  type Block,
  type HiLoEvent,
  type HiSource,
  type StoredKeys,
} from 'hilo-core';

const fixed = { adaptive: false, prefetchAt: false, blockSize: 10 } as const;

/** Stored keys in memory, recording the calls in order. */
function storedIn(keys: Set<bigint>, calls: string[] = []): StoredKeys {
  const max = (filter: (k: bigint) => boolean) => {
    const found = [...keys].filter(filter);
    return found.length === 0
      ? undefined
      : { key: found.reduce((a, b) => (a > b ? a : b)), table: 'orders', column: 'id' };
  };
  return {
    largest: async (segment) => {
      calls.push(`largest ${segment}`);
      await Promise.resolve();
      return max(() => true);
    },
    within: async (segment, block: Block) => {
      calls.push(`within ${segment} ${block.first}-${block.last}`);
      await Promise.resolve();
      return max((k) => k >= block.first && k <= block.last);
    },
  };
}

/** Records reservations into `calls`. */
function recorded(source: HiSource, calls: string[]): HiSource {
  return {
    ...source,
    description: 'recorded memory source',
    reserve: async (segment, request) => {
      const blocks = await source.reserve(segment, request);
      calls.push(`reserve ${blocks.map((b) => `${b.first}-${b.last}`).join(',')}`);
      return blocks;
    },
  };
}

describe('verified blocks in the engine', () => {
  it('reads the largest stored key before the first reservation, then probes each block', async () => {
    const calls: string[] = [];
    const hilo = createHiLoGenerator({
      ...fixed,
      source: recorded(memorySource(), calls),
      storedKeys: storedIn(new Set(), calls),
    });
    await hilo.warm(['orders']);
    for (let i = 0; i < 11; i++) await hilo.next('orders');
    await hilo.close();
    expect(calls).toEqual([
      'largest orders',
      'reserve 1-10',
      'within orders 1-10',
      'reserve 11-20',
      'within orders 11-20',
    ]);
  });

  it('refuses a store behind the largest stored key, hands out nothing, and is not retried', async () => {
    const source = memorySource();
    const events: HiLoEvent[] = [];
    const hilo = createHiLoGenerator({
      ...fixed,
      source,
      storedKeys: storedIn(new Set([5n])),
      onEvent: (e) => events.push(e),
    });
    const error = await hilo.next('orders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoStoreBehindError);
    expect(error).toMatchObject({
      segment: 'orders',
      table: 'orders',
      column: 'id',
      storedKey: 5n,
      block: { first: 1n, last: 10n },
      retryable: false,
    });
    expect((error as HiLoStoreBehindError).hint?.cli).toBe(
      'Run `hilo floor --url <URL> orders --from orders.id` to move the store above the stored keys.',
    );
    expect(source.reservations.get('orders')).toBe(1);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(events).toContainEqual({ type: 'lost', segment: 'orders', keys: 10, reason: 'store-behind' });
    expect(hilo.tryNextSync('orders')).toBeUndefined();
    await hilo.close();
  });

  it('lifts the floor with onStoreBehind: lift, once, with an event and a warning', async () => {
    const events: HiLoEvent[] = [];
    const warned: unknown[][] = [];
    const emitWarning = process.emitWarning;
    process.emitWarning = (...args: unknown[]) => void warned.push(args);
    try {
      const hilo = createHiLoGenerator({
        ...fixed,
        keyType: 'bigint',
        source: memorySource(),
        storedKeys: storedIn(new Set([3n, 42n])),
        onStoreBehind: 'lift',
        onEvent: (e) => events.push(e),
      });
      expect(await hilo.next('orders')).toBe(43n);
      await hilo.close();
    } finally {
      process.emitWarning = emitWarning;
    }
    expect(events.filter((e) => e.type === 'floor-lifted')).toEqual([
      {
        type: 'floor-lifted',
        segment: 'orders',
        table: 'orders',
        column: 'id',
        storedKey: 42n,
        block: { first: 1n, last: 10n },
      },
    ]);
    expect(warned).toHaveLength(1);
    expect(String(warned[0]![0])).toMatch(/segment "orders" was behind orders\.id.*above 42/);
  });

  it('says so when the source cannot lift its floor', async () => {
    const { raiseAbove: _ignored, ...source } = memorySource();
    const hilo = createHiLoGenerator({
      ...fixed,
      source,
      storedKeys: storedIn(new Set([5n])),
      onStoreBehind: 'lift',
    });
    await expect(hilo.next('orders')).rejects.toThrow(/could not be lifted automatically: memory source cannot raise/);
    await hilo.close();
  });

  it('validates storedKeys and onStoreBehind', () => {
    const source = memorySource();
    expect(() => createHiLoGenerator({ source, storedKeys: {} as StoredKeys })).toThrow(HiLoConfigurationError);
    expect(() =>
      createHiLoGenerator({ source, storedKeys: storedIn(new Set()), onStoreBehind: 'ignore' as 'lift' }),
    ).toThrow(/Expected `onStoreBehind` to be "error" or "lift"/);
    expect(() => createHiLoGenerator({ source, onStoreBehind: 'lift' })).toThrow(
      /`onStoreBehind` applies only with `storedKeys`/,
    );
  });
});

describe('maxKey', () => {
  it('hands out keys up to maxKey and refuses the next with HiLoKeyLimitError', async () => {
    const hilo = createHiLoGenerator({ ...fixed, source: memorySource(), maxKey: 15 });
    const keys = await hilo.reserve('small', 15);
    expect(keys.at(-1)).toBe(15);
    await expect(hilo.next('small')).rejects.toBeInstanceOf(HiLoKeyLimitError);
    await expect(hilo.next('small')).rejects.toThrow(/reached its maxKey 15.*raise `maxKey`/);
    await hilo.close();
  });
});
