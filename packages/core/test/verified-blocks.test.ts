// The engine side of verified blocks (issue 39) and maxKey, over a memory source and stored keys kept in a Set:
// what runs when, in what order, and what is refused. The SQL side runs on real databases in verified-blocks.*.test.ts.
import {
  createHiLoGenerator,
  HiLoConfigurationError,
  HiLoKeyLimitError,
  HiLoMismatchError,
  HiLoStoreBehindError,
  memorySource,
  type Block,
  type HiLoEvent,
  type HiSource,
  type StoredKeys,
  type StoreOverlap,
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
    expect(hilo.stats()['orders']!.state).toBe('serving'); // the store was read: unverified → serving
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
    // nothing was kept: the segment stays unverified (its next reservation reads the store again)
    expect(hilo.stats()['orders']!.state).toBe('unverified');
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

/** Stored keys of a store shared with a peer: overlaps become a HiLoMismatchError recording what was found. */
function sharedIn(keys: Set<bigint>, found: StoreOverlap[], calls: string[] = []): StoredKeys {
  return {
    ...storedIn(keys, calls),
    sharedWith: {
      mismatch: (overlap) => {
        found.push(overlap);
        return new HiLoMismatchError(`peer reads it differently (${overlap.where})`);
      },
    },
  };
}

describe('verified blocks of a store shared with a peer (interop presets)', () => {
  it('a key the peer stored in a new block refuses the segment for good with its mismatch error, not StoreBehind', async () => {
    const keys = new Set<bigint>();
    const found: StoreOverlap[] = [];
    const events: HiLoEvent[] = [];
    const source = memorySource();
    const hilo = createHiLoGenerator({
      ...fixed,
      source,
      storedKeys: sharedIn(keys, found),
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.next('orders')).toBe(1);
    keys.add(1n);
    keys.add(15n); // the peer, ahead of hilo's reading of the store, stored a key of hilo's next block
    const taken = await hilo.reserve('orders', 9);
    expect(taken).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const error = await hilo.next('orders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoMismatchError);
    expect(error).toMatchObject({ message: 'peer reads it differently (block)', retryable: false });
    expect(found).toEqual([
      {
        segment: 'orders',
        stored: { key: 15n, table: 'orders', column: 'id' },
        block: { first: 11n, last: 20n },
        where: 'block',
      },
    ]);
    expect(events).toContainEqual({ type: 'lost', segment: 'orders', keys: 10, reason: 'mismatch' });
    // refused for good: no further reservation, no key from memory
    expect(hilo.stats()['orders']).toMatchObject({ state: 'refused', keysAvailable: 0 });
    keys.delete(15n);
    await expect(hilo.next('orders')).rejects.toBe(error);
    expect(() => hilo.nextSync('orders')).toThrow(error as Error);
    expect(source.reservations.get('orders')).toBe(2);
    // close() reports the segment refused in the run: no run ends with a peer's keys shared in silence
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it('the largest stored key at start not below the first block is a mismatch too', async () => {
    const found: StoreOverlap[] = [];
    const hilo = createHiLoGenerator({ ...fixed, source: memorySource(), storedKeys: sharedIn(new Set([4n]), found) });
    await expect(hilo.warm(['orders'])).rejects.toBeInstanceOf(HiLoMismatchError);
    expect(found.map((f) => [f.where, f.stored.key, f.block.first])).toEqual([['start', 4n, 1n]]);
    // close() reports the segment refused in the run: no run ends with a peer's keys shared in silence
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it('a key the peer stored among the keys in hand that hilo never handed out refuses the segment and drops them', async () => {
    const keys = new Set<bigint>();
    const found: StoreOverlap[] = [];
    const events: HiLoEvent[] = [];
    const calls: string[] = [];
    const hilo = createHiLoGenerator({
      adaptive: false,
      blockSize: 10,
      prefetchAt: 0.5,
      source: memorySource(),
      storedKeys: sharedIn(keys, found, calls),
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.reserve('orders', 3)).toEqual([1, 2, 3]);
    for (const k of [1n, 2n, 3n]) keys.add(k);
    keys.add(8n); // the peer, behind hilo's reading of the store, wrote into hilo's block
    await expect(hilo.reserve('orders', 3)).resolves.toEqual([4, 5, 6]); // the prefetch mark (key 5) starts a reservation
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toContain('within orders 7-10'); // the keys in hand never handed out, probed before the store is read
    expect(found.map((f) => [f.where, f.stored.key, f.block.first, f.block.last])).toEqual([['in-hand', 8n, 7n, 10n]]);
    expect(events).toContainEqual({ type: 'lost', segment: 'orders', keys: 4, reason: 'mismatch' });
    expect(hilo.stats()['orders']!.state).toBe('refused'); // serving → refused: the keys in hand dropped
    expect(() => hilo.tryNextSync('orders')).toThrow(HiLoMismatchError); // like an overflow, not "not ready yet"
    await expect(hilo.next('orders')).rejects.toBeInstanceOf(HiLoMismatchError);
    // close() reports the segment refused in the run: no run ends with a peer's keys shared in silence
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
    expect(hilo.stats()['orders']!.state).toBe('closed'); // refused → closed: the only way out
  });

  it('keys hilo handed out itself while the probes of the keys in hand ran are no alarm', async () => {
    const keys = new Set<bigint>();
    const found: StoreOverlap[] = [];
    const generator: { hilo?: ReturnType<typeof createHiLoGenerator> } = {};
    const stored = sharedIn(keys, found);
    const during: string[] = [];
    const slow: StoredKeys = {
      ...stored,
      // while the probe of the keys never handed out (6…10) runs, the application takes 6…8 and stores them
      within: async (segment, block, signal) => {
        if (block.first === 6n && block.last === 10n) {
          for (const k of await generator.hilo!.reserve('orders', 3)) keys.add(BigInt(k));
          during.push('within');
        }
        return stored.within(segment, block, signal);
      },
      // while the count of the block in hand (1…10) runs, it takes 9 and stores it
      counts: async (segment, block) => {
        if (block.first === 1n && block.last === 10n) {
          for (const k of await generator.hilo!.reserve('orders', 1)) keys.add(BigInt(k));
          during.push('counts');
        }
        const n = [...keys].filter((k) => k >= block.first && k <= block.last).length;
        return [{ table: 'orders', column: 'id', keys: BigInt(n) }];
      },
    };
    const hilo = createHiLoGenerator({
      adaptive: false,
      blockSize: 10,
      prefetchAt: 0.5,
      source: memorySource(),
      storedKeys: slow,
    });
    generator.hilo = hilo;
    const first = await hilo.reserve('orders', 5);
    for (const k of first) keys.add(BigInt(k));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(during).toEqual(['within', 'counts']);
    const rest = await hilo.reserve('orders', 10);
    expect(found).toEqual([]);
    expect(new Set([...first, ...rest]).size).toBe(15);
    expect(rest.slice(0, 1)).toEqual([10]);
    await hilo.close();
  });

  it('with counts: more keys of a block in hand stored than hilo handed out shows the peer, also among keys handed out', async () => {
    // rows of a table without a primary key: the peer's copy of a key hilo handed out is a second row
    const rows: bigint[] = [];
    const keys = new Set<bigint>();
    const found: StoreOverlap[] = [];
    const shared = sharedIn(keys, found);
    const store = (k: bigint) => {
      rows.push(k);
      keys.add(k);
    };
    const counting: StoredKeys = {
      ...shared,
      counts: async (_segment, block) => {
        await Promise.resolve();
        return [
          {
            table: 'orders',
            column: 'id',
            keys: BigInt(rows.filter((k) => k >= block.first && k <= block.last).length),
          },
        ];
      },
    };
    const hilo = createHiLoGenerator({
      adaptive: false,
      blockSize: 10,
      prefetchAt: 0.5,
      source: memorySource(),
      storedKeys: counting,
    });
    for (const k of await hilo.reserve('orders', 4)) store(BigInt(k)); // 1…4
    store(2n); // the peer's copies of keys hilo handed out (none among the keys never handed out)
    store(3n); // 6 rows of 1…10; when hilo crosses its prefetch mark (key 5) it has handed out 5
    expect(await hilo.reserve('orders', 1)).toEqual([5]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(found.map((f) => [f.where, f.block.first, f.block.last, f.counted])).toEqual([
      ['in-hand', 1n, 10n, { keys: 6n, handedOut: 5n }],
    ]);
    await expect(hilo.next('orders')).rejects.toBeInstanceOf(HiLoMismatchError);
    // close() reports the segment refused in the run: no run ends with a peer's keys shared in silence
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it("refuses onStoreBehind: 'lift' with a peer's stored keys", () => {
    expect(() =>
      createHiLoGenerator({ source: memorySource(), storedKeys: sharedIn(new Set(), []), onStoreBehind: 'lift' }),
    ).toThrow(/`onStoreBehind: 'lift'` cannot be used with an interop preset's `storedKeys`/);
    expect(() =>
      createHiLoGenerator({
        source: memorySource(),
        storedKeys: { ...storedIn(new Set()), sharedWith: {} as never },
      }),
    ).toThrow(/Expected `storedKeys.sharedWith` to be an object with a mismatch\(\) method/);
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
