import fc from 'fast-check';
import {
  createHiLoGenerator,
  HiLoClosedError,
  HiLoConfigurationError,
  HiLoNotReadyError,
  HiLoOverflowError,
  HiLoSourceError,
  HiLoSourceUnavailableError,
  HiLoTimeoutError,
  memorySource,
  type Block,
  type HiSource,
  type ReserveRequest,
} from 'hilo-core';

const fixed = { adaptive: false, prefetchAt: false } as const;

/** Wraps a source so that tests can make reservations fail before or after the database acted. */
function flaky(
  inner: HiSource,
  plan: { failBefore?: () => boolean; failAfter?: () => boolean; hang?: () => boolean },
): HiSource {
  return {
    description: 'flaky source',
    async reserve(segment: string, request: ReserveRequest) {
      if (plan.hang?.()) return await new Promise<readonly Block[]>(() => undefined);
      if (plan.failBefore?.()) throw new HiLoSourceUnavailableError('connection refused (injected)');
      const blocks = await inner.reserve(segment, request);
      // the database granted the block but the answer was lost: the outcome is unknown to the caller
      if (plan.failAfter?.()) throw new HiLoSourceUnavailableError('connection reset after commit (injected)');
      return blocks;
    },
    release: inner.release?.bind(inner),
  };
}

describe('generator: keys from memory', () => {
  it('hands out increasing keys and reserves one block per blockSize keys', async () => {
    const source = memorySource();
    const generator = createHiLoGenerator({ source, blockSize: 10, ...fixed });
    const keys: number[] = [];
    for (let i = 0; i < 95; i++) keys.push(await generator.next('orders'));
    expect(keys).toEqual(Array.from({ length: 95 }, (_, i) => i + 1));
    expect(source.reservations.get('orders')).toBe(10);
    expect(generator.stats().orders).toMatchObject({
      keysIssued: 95,
      keysAvailable: 5,
      reservations: 10,
      keysReserved: 100,
    });
  });

  it('nextSync throws a typed not-ready error when cold, starts a reservation, then serves from memory', async () => {
    const generator = createHiLoGenerator({ source: memorySource({ latencyMs: 5 }), blockSize: 5, ...fixed });
    expect(() => generator.nextSync('orders')).toThrow(HiLoNotReadyError);
    expect(generator.tryNextSync('orders')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(generator.nextSync('orders')).toBe(1);
    expect(generator.nextSync('orders')).toBe(2);
  });

  it('warm() fills memory so that nextSync never waits', async () => {
    const source = memorySource({ latencyMs: 2 });
    const generator = createHiLoGenerator({ source, blockSize: 100 });
    await generator.warm(['orders', 'customers']);
    expect(generator.nextSync('orders')).toBe(1);
    expect(generator.nextSync('customers')).toBe(1);
  });

  it('a thousand concurrent callers on an empty segment cause one reservation', async () => {
    const source = memorySource({ latencyMs: 3 });
    const generator = createHiLoGenerator({ source, blockSize: 10, ...fixed });
    const keys = await Promise.all(Array.from({ length: 1000 }, () => generator.next('orders')));
    expect(new Set(keys).size).toBe(1000);
    expect(source.reservations.get('orders')).toBe(1);
  });

  it('reserve(n) returns n increasing keys in few round trips', async () => {
    const source = memorySource();
    const generator = createHiLoGenerator({ source, blockSize: 100, ...fixed });
    const first = await generator.next('orders');
    const keys = await generator.reserve('orders', 10_000);
    expect(keys).toHaveLength(10_000);
    expect(keys[0]).toBe(first + 1);
    for (let i = 1; i < keys.length; i++) expect(keys[i]).toBe(keys[i - 1]! + 1);
    expect(source.reservations.get('orders')).toBeLessThanOrEqual(3);
  });

  it('ensure(n) puts n keys in memory in one round trip, so a synchronous batch of n never misses', async () => {
    const source = memorySource();
    const generator = createHiLoGenerator({ source, blockSize: 100, ...fixed });
    await generator.warm(['items']);
    await generator.ensure('items', 10_000);
    expect(source.reservations.get('items')).toBe(2); // warm, then the shortfall of 9,900 at once
    expect(generator.stats().items!.keysAvailable).toBeGreaterThanOrEqual(10_000);
    const keys = Array.from({ length: 10_000 }, () => generator.nextSync('items'));
    expect(new Set(keys).size).toBe(10_000);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    // enough in memory already: no round trip
    await generator.ensure('items', 0);
    await generator.warm(['other']);
    await generator.ensure('other', 50);
    expect(source.reservations.get('other')).toBe(1);
    await generator.close();
  });

  it('ensure() while next() callers wait and keys are taken: every key once, and n in memory at the end', async () => {
    const source = memorySource({ latencyMs: 2 });
    const generator = createHiLoGenerator({ source, blockSize: 10, adaptive: false });
    const taken = Promise.all(Array.from({ length: 300 }, () => generator.next('orders')));
    await generator.ensure('orders', 500);
    const first = await taken;
    const rest = Array.from({ length: Math.min(500, generator.stats().orders!.keysAvailable) }, () =>
      generator.nextSync('orders'),
    );
    expect(rest.length).toBeGreaterThanOrEqual(200); // the 300 callers may have taken from what ensure brought
    expect(new Set([...first, ...rest]).size).toBe(first.length + rest.length);
    await expect(generator.ensure('orders', -1)).rejects.toThrow(HiLoConfigurationError);
    await expect(generator.ensure('orders', 1.5)).rejects.toThrow(/`count`/);
    await generator.close();
    await expect(generator.ensure('orders', 1)).rejects.toThrow(HiLoClosedError);
  });

  it('prefetches the next block in the background past the configured fraction', async () => {
    const source = memorySource({ latencyMs: 1 });
    const generator = createHiLoGenerator({ source, blockSize: 10, adaptive: false, prefetchAt: 0.8 });
    await generator.warm(['orders']);
    for (let i = 0; i < 7; i++) generator.nextSync('orders');
    expect(source.reservations.get('orders')).toBe(1);
    generator.nextSync('orders'); // the 8th key crosses 0.8
    // the background reservation it started (waited for, however long a loaded machine takes: issue #52)
    while (generator.stats().orders!.keysAvailable < 12) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(source.reservations.get('orders')).toBe(2);
    // the boundary is crossed without waiting
    for (let i = 0; i < 12; i++) expect(generator.nextSync('orders')).toBe(9 + i);
  });

  it('warm() with a segment named twice (a table per tenant, one segment) reserves one block', async () => {
    const source = memorySource();
    const generator = createHiLoGenerator({ source, blockSize: 10, adaptive: false, prefetchAt: false });
    await generator.warm(['orders', 'orders']);
    expect(source.reservations.get('orders')).toBe(1);
    expect(generator.stats().orders!.keysAvailable).toBe(10);
    await generator.close();
  });

  it('prefetchAt: 0 keeps a standby block from the first key of each block, once past the start-up ramp', async () => {
    // the ramp's small block (a process that writes a few rows) asks for no standby: 3 keys of its 4, one reservation
    const source = memorySource();
    const generator = createHiLoGenerator({ source, blockSize: 10, prefetchAt: 0 });
    await generator.ensure('orders', 1);
    for (let k = 1; k <= 3; k++) expect(generator.nextSync('orders')).toBe(k);
    // (a standby would have been asked for at key 1: a memory source answers within a few turns of the event loop)
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(source.reservations.get('orders')).toBe(1);
    expect(generator.stats().orders!.keysAvailable).toBe(1);
    // warm() asks for a full block: the ramp is over, and each block's first key asks for the next one
    const warmed = createHiLoGenerator({ source: memorySource(), blockSize: 10, adaptive: false, prefetchAt: 0 });
    const inHand = async (keys: number) => {
      // the background reservation (waited for, however long a loaded machine takes: issue #52)
      while (warmed.stats().orders!.keysAvailable < keys) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    await warmed.warm(['orders']);
    expect(warmed.nextSync('orders')).toBe(1);
    await inHand(19);
    for (let k = 2; k <= 11; k++) expect(warmed.nextSync('orders')).toBe(k);
    // key 11 opened the standby block and asked for the one after it: a whole block stands by again
    await inHand(19);
    expect(warmed.stats().orders!.keysIssued).toBe(11);
    for (let k = 12; k <= 30; k++) expect(warmed.nextSync('orders')).toBe(k);
    await generator.close();
    await warmed.close();
  });

  it('adaptive sizing grows blocks when keys are consumed fast, within the bounds', async () => {
    // the clock stands still: every block is used up "at once", however busy the machine (issue #52)
    const realNow = Date.now;
    const stopped = realNow();
    Date.now = () => stopped;
    const source = memorySource();
    const generator = createHiLoGenerator({
      source,
      blockSize: 10,
      maxBlockSize: 640,
      adaptive: { targetMs: 1000 },
      prefetchAt: false,
    });
    try {
      for (let i = 0; i < 5000; i++) await generator.next('orders');
    } finally {
      Date.now = realNow;
    }
    const { blockSize } = generator.stats().orders!;
    expect(blockSize).toBeGreaterThan(10);
    expect(blockSize).toBeLessThanOrEqual(640);
    expect(source.reservations.get('orders')!).toBeLessThan(5000 / 10);
  });

  it('sizes the first blocks for a short life: 4 keys, then ×4 per reservation up to blockSize', async () => {
    const source = memorySource();
    const sizes: number[] = [];
    const generator = createHiLoGenerator({
      source,
      blockSize: 100,
      prefetchAt: false,
      onEvent: (event) => void (event.type === 'reserved' && sizes.push(event.keys)),
    });
    expect(await generator.next('orders')).toBe(1);
    expect(sizes).toEqual([4]);
    for (let i = 0; i < 4 + 16 + 64; i++) await generator.next('orders');
    expect(sizes.slice(0, 3)).toEqual([4, 16, 64]);
    // then the block size, or more when adaptive sizing sees fast use: never back to the ramp
    expect(sizes[3]).toBeGreaterThanOrEqual(100);
    await generator.close();
  });

  it('a process that used 3 keys of its first block gives back only 1 at close', async () => {
    const source = memorySource();
    const first = createHiLoGenerator({ source, blockSize: 100 });
    for (let i = 0; i < 3; i++) await first.next('orders');
    await first.close();
    expect(first.stats().orders).toMatchObject({ keysReserved: 4, keysReturned: 1, keysLost: 0 });
    const second = createHiLoGenerator({ source, blockSize: 100 });
    expect(await second.next('orders')).toBe(4);
    await second.close();
  });

  it('warm() and ensure() get what they ask for at once, not the ramp', async () => {
    const warmed = createHiLoGenerator({ source: memorySource(), blockSize: 100, prefetchAt: false });
    await warmed.warm(['orders']);
    expect(warmed.stats().orders).toMatchObject({ keysReserved: 100, reservations: 1 });
    // past the ramp: the next block is a full one too
    for (let i = 0; i < 101; i++) await warmed.next('orders');
    expect(warmed.stats().orders!.keysReserved).toBeGreaterThanOrEqual(200);
    const ensured = createHiLoGenerator({ source: memorySource(), blockSize: 100, prefetchAt: false });
    await ensured.ensure('orders', 30);
    expect(ensured.stats().orders).toMatchObject({ keysReserved: 30, reservations: 1 });
    await Promise.all([warmed.close(), ensured.close()]);
  });

  it('firstBlockSize equal to blockSize, or adaptive: false, reserves full blocks from the start', async () => {
    for (const options of [{ firstBlockSize: 100 }, { adaptive: false }] as const) {
      const generator = createHiLoGenerator({ source: memorySource(), blockSize: 100, prefetchAt: false, ...options });
      await generator.next('orders');
      expect(generator.stats().orders!.keysReserved).toBe(100);
      await generator.close();
    }
  });

  it('an onEvent handler that throws is named as such, not blamed on the database, and the keys are kept', async () => {
    let failing = true;
    const generator = createHiLoGenerator({
      source: memorySource(),
      blockSize: 10,
      onEvent: (event) => {
        if (failing && event.type === 'reserved') throw new Error('metrics backend down');
      },
    });
    const refusal = generator.warm(['orders']);
    await expect(refusal).rejects.toThrow(HiLoConfigurationError);
    await expect(refusal).rejects.toThrow(
      /onEvent handler threw while handling a "reserved" event: metrics backend down\. The error is the handler's/,
    );
    failing = false;
    expect(generator.nextSync('orders')).toBe(1);
    await generator.close();
  });

  it('keeps state per generator: two databases never share a block', async () => {
    const a = createHiLoGenerator({ source: memorySource({ start: 1 }), blockSize: 10 });
    const b = createHiLoGenerator({ source: memorySource({ start: 1000 }), blockSize: 10 });
    expect(await a.next('orders')).toBe(1);
    expect(await b.next('orders')).toBe(1000);
    expect(await a.next('orders')).toBe(2);
  });

  it('formats string ids like RavenDB', async () => {
    const generator = createHiLoGenerator({ source: memorySource(), idFormat: { nodeTag: 'A' } });
    expect(await generator.nextFullId('orders')).toBe('orders/1-A');
    const dashed = createHiLoGenerator({ source: memorySource(), idFormat: { separator: '-' } });
    expect(await dashed.nextFullId('orders')).toBe('orders-1');
    expect(() => createHiLoGenerator({ source: memorySource(), idFormat: { separator: '|' } })).toThrow(/separator/);
  });
});

describe('generator: range return (RavenDB)', () => {
  it('first range 1–32; after one key is used and the range returned, the next range is 2–33', async () => {
    const source = memorySource();
    const first = createHiLoGenerator({ source, blockSize: 32, ...fixed });
    expect(await first.next('employees')).toBe(1);
    await first.close();
    expect(first.stats().employees).toMatchObject({ keysReturned: 31, keysLost: 0 });
    const second = createHiLoGenerator({ source, blockSize: 32, ...fixed });
    expect(await second.next('employees')).toBe(2);
    const rest = await second.reserve('employees', 31);
    expect(rest.at(-1)).toBe(33);
    expect(source.reservations.get('employees')).toBe(2);
  });

  it('does not return a range when another process reserved after it: the gap stays', async () => {
    const source = memorySource();
    const a = createHiLoGenerator({ source, blockSize: 32, ...fixed });
    const b = createHiLoGenerator({ source, blockSize: 32, ...fixed });
    await a.next('orders');
    await b.next('orders');
    await a.close();
    expect(a.stats().orders).toMatchObject({ keysReturned: 0, keysLost: 31 });
    const c = createHiLoGenerator({ source, blockSize: 32, ...fixed });
    expect(await c.next('orders')).toBe(65);
  });
});

describe('generator: failures', () => {
  it('retries transient failures with backoff and succeeds', async () => {
    let failures = 2;
    const source = flaky(memorySource(), { failBefore: () => failures-- > 0 });
    const events: string[] = [];
    const generator = createHiLoGenerator({ source, retryBaseDelayMs: 1, onEvent: (e) => events.push(e.type) });
    expect(await generator.next('orders')).toBe(1);
    expect(generator.stats().orders!.failedAttempts).toBe(2);
    expect(events.filter((e) => e === 'retry')).toHaveLength(2);
  });

  it('discards a block whose reservation answer was lost: a gap, never a duplicate', async () => {
    let lose = true;
    const inner = memorySource();
    const generator = createHiLoGenerator({
      source: flaky(inner, { failAfter: () => (lose ? ((lose = false), true) : false) }),
      blockSize: 10,
      retryBaseDelayMs: 1,
      ...fixed,
    });
    expect(await generator.next('orders')).toBe(11);
  });

  it('does not retry errors that retrying cannot cure', async () => {
    let calls = 0;
    const source: HiSource = {
      description: 'broken',
      async reserve() {
        calls++;
        throw new HiLoSourceError('relation "hilo_segments" does not exist; run `hilo init`');
      },
    };
    const generator = createHiLoGenerator({ source, retryBaseDelayMs: 1 });
    await expect(generator.next('orders')).rejects.toThrow(/hilo init/);
    expect(calls).toBe(1);
  });

  it('gives up after the configured retries with the last cause', async () => {
    const source = flaky(memorySource(), { failBefore: () => true });
    const generator = createHiLoGenerator({ source, retries: 3, retryBaseDelayMs: 1 });
    await expect(generator.next('orders')).rejects.toMatchObject({
      code: 'HILO_EXHAUSTED',
      message: expect.stringMatching(/after 4 attempts/),
    });
    expect(generator.stats().orders!.failedAttempts).toBe(4);
  });

  it('times out a hanging reservation with a typed error', async () => {
    const source = flaky(memorySource(), { hang: () => true });
    const generator = createHiLoGenerator({ source, timeoutMs: 50, retries: 0 });
    // the reservation never answers: what ends the wait is the timeout (the test's own is the hang detector)
    await expect(generator.next('orders')).rejects.toBeInstanceOf(HiLoTimeoutError);
  });

  it('counts a block granted after the timeout as lost and never hands it out', async () => {
    const inner = memorySource();
    let slow = true;
    const source: HiSource = {
      description: 'slow once',
      async reserve(segment, request) {
        if (slow) {
          slow = false;
          await new Promise((resolve) => setTimeout(resolve, 80));
        }
        return inner.reserve(segment, request);
      },
    };
    const generator = createHiLoGenerator({ source, timeoutMs: 40, retryBaseDelayMs: 1, blockSize: 10, ...fixed });
    // the first attempt times out at 40 ms; the retry gets 1–10; the first attempt's block (11–20) arrives
    // later and is discarded
    expect(await generator.next('orders')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(generator.stats().orders!.keysLost).toBe(10);
    const keys = await generator.reserve('orders', 10);
    expect(keys).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 21]);
  });

  it('warm() fails fast with a clear error when the database is unreachable', async () => {
    const source = flaky(memorySource(), { failBefore: () => true });
    const generator = createHiLoGenerator({ source, retries: 5, retryBaseDelayMs: 1000 });
    await expect(generator.warm(['orders'])).rejects.toThrow(/start-up.*reachable/s);
    // fast because it makes one attempt and no backoff, not measured in ms (issue #52)
    expect(generator.stats().orders!.failedAttempts).toBe(1);
  });

  it('refuses a source that goes backwards rather than hand out a key twice', async () => {
    let first = 100n;
    const source: HiSource = {
      description: 'restarted sequence',
      async reserve() {
        const block = { first, last: first + 9n };
        first = 1n; // someone restarted the sequence below what was handed out
        return [block];
      },
    };
    const generator = createHiLoGenerator({ source, blockSize: 10, ...fixed });
    for (let i = 0; i < 10; i++) await generator.next('orders');
    await expect(generator.next('orders')).rejects.toThrow(/backwards.*hilo floor/s);
  });

  it('next() after close() fails with a typed error', async () => {
    const generator = createHiLoGenerator({ source: memorySource() });
    await generator.next('orders');
    await generator.close();
    await expect(generator.next('orders')).rejects.toBeInstanceOf(HiLoClosedError);
  });
});

describe('generator: key types', () => {
  it('number keys stop with a typed error instead of passing Number.MAX_SAFE_INTEGER', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const generator = createHiLoGenerator({ source: memorySource({ start: max - 2 }), blockSize: 10, ...fixed });
    expect(await generator.reserve('orders', 3)).toEqual([max - 2, max - 1, max]);
    await expect(generator.next('orders')).rejects.toBeInstanceOf(HiLoOverflowError);
  });

  it('bigint keys go past Number.MAX_SAFE_INTEGER', async () => {
    const start = BigInt(Number.MAX_SAFE_INTEGER) - 1n;
    const generator = createHiLoGenerator({
      source: memorySource({ start }),
      blockSize: 4,
      keyType: 'bigint',
      ...fixed,
    });
    const keys = await generator.reserve('orders', 6);
    expect(keys).toEqual([start, start + 1n, start + 2n, start + 3n, start + 4n, start + 5n]);
    expect(typeof (await generator.next('orders'))).toBe('bigint');
  });
});

describe('generator: options', () => {
  it.each([
    [{ blockSize: 0 }, /`blockSize`.*got 0/],
    [{ blockSize: -5 }, /`blockSize`.*got -5/],
    [{ blockSize: 1.5 }, /`blockSize`/],
    [{ blockSize: 100, maxBlockSize: 10 }, /maxBlockSize.*at least/],
    [{ prefetchAt: 1.5 }, /`prefetchAt`.*1.5/],
    [{ keyType: 'string' }, /`keyType`.*"string"/],
    [{ retries: -1 }, /`retries`.*-1/],
    [{ timeoutMs: 0 }, /`timeoutMs`/],
    [{ idFormat: { nodeTag: 'A-B' } }, /nodeTag/],
    [{ segments: { orders: { blockSize: 0 } } }, /segments\.orders\.blockSize/],
  ])('rejects %j with a message naming the value', (bad, message) => {
    expect(() => createHiLoGenerator({ source: memorySource(), ...(bad as object) })).toThrow(HiLoConfigurationError);
    expect(() => createHiLoGenerator({ source: memorySource(), ...(bad as object) })).toThrow(message);
  });

  it('rejects a missing source and bad segment names', async () => {
    expect(() => createHiLoGenerator({} as never)).toThrow(/`source`/);
    const generator = createHiLoGenerator({ source: memorySource() });
    await expect(generator.next('')).rejects.toThrow(/`segment`/);
  });
});

describe('generator: properties', () => {
  it('no key twice and keys increasing per generator, over random interleavings, failures and block sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          generators: fc.integer({ min: 1, max: 4 }),
          blockSize: fc.integer({ min: 1, max: 50 }),
          prefetchAt: fc.oneof(fc.constant(false as const), fc.double({ min: 0.1, max: 1, noNaN: true })),
          adaptive: fc.boolean(),
          failureRate: fc.double({ min: 0, max: 0.4, noNaN: true }),
          ops: fc.array(
            fc.record({
              g: fc.nat(3),
              kind: fc.constantFrom('next', 'nextSync', 'reserve'),
              n: fc.integer({ min: 1, max: 40 }),
            }),
            { minLength: 1, maxLength: 60 },
          ),
        }),
        async (p) => {
          const shared = memorySource();
          const rand = (() => {
            let x = 0x9e3779b9 ^ p.ops.length;
            return () => ((x = (x * 1103515245 + 12345) >>> 0), x / 2 ** 32);
          })();
          const gens = Array.from({ length: p.generators }, () =>
            createHiLoGenerator({
              source: flaky(shared, {
                failBefore: () => rand() < p.failureRate / 2,
                failAfter: () => rand() < p.failureRate / 2,
              }),
              blockSize: p.blockSize,
              prefetchAt: p.prefetchAt,
              adaptive: p.adaptive ? { targetMs: 50 } : false,
              retries: 50,
              retryBaseDelayMs: 0,
              retryMaxDelayMs: 0,
            }),
          );
          const perGen: number[][] = gens.map(() => []);
          await Promise.all(
            p.ops.map(async (op) => {
              const i = op.g % gens.length;
              const g = gens[i]!;
              if (op.kind === 'next') perGen[i]!.push(await g.next('s'));
              else if (op.kind === 'nextSync') {
                const k = g.tryNextSync('s');
                if (k !== undefined) perGen[i]!.push(k);
              } else perGen[i]!.push(...(await g.reserve('s', op.n)));
            }),
          );
          await Promise.all(gens.map((g) => g.close()));
          const all = perGen.flat();
          expect(new Set(all).size).toBe(all.length);
          for (const keys of perGen) {
            const sorted = [...keys].sort((a, b) => a - b);
            // callers interleave, but every key handed out by one generator is unique and comes from increasing blocks
            expect(new Set(keys).size).toBe(keys.length);
            expect(sorted.every((k) => k >= 1)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('sequential callers see strictly increasing keys, and reservations stay ≈ keys ÷ block', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 2000 }), async (blockSize, count) => {
        const source = memorySource();
        const generator = createHiLoGenerator({ source, blockSize, adaptive: false, prefetchAt: 0.8 });
        let previous = 0;
        for (let i = 0; i < count; i++) {
          const k = await generator.next('s');
          expect(k).toBeGreaterThan(previous);
          previous = k;
        }
        const reservations = source.reservations.get('s') ?? 0;
        expect(reservations).toBeGreaterThanOrEqual(Math.ceil(count / blockSize));
        expect(reservations).toBeLessThanOrEqual(Math.ceil(count / blockSize) + 1);
      }),
      { numRuns: 60 },
    );
  });
});
