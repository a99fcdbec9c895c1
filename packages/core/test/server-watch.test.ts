// The engine side of failover (issue #40, DESIGN rule 7), over memory sources standing for servers: a source that
// says which server it reached, and "servers" whose counters differ as a primary's and a lagging standby's do.
// What happens to the blocks in memory, in what order, and that keys only grow. Real servers: failover.postgres.test.ts.
import {
  createHiLoGenerator,
  HiLoClosedError,
  HiLoSourceError,
  HiLoStoreBehindError,
  memorySource,
  type HiLoEvent,
  type HiSource,
  type StoredKeys,
} from 'hilo-core';

const fixed = { adaptive: false, prefetchAt: false, blockSize: 10 } as const;

/** Servers that share nothing, as a primary and a promoted standby that missed its last reservations. */
class Servers {
  readonly servers = new Map<string, ReturnType<typeof memorySource>>();
  current = 'primary';
  /** When set, `server()` rejects (retryable), as when the server cannot be reached. */
  down: Error | undefined;
  checks = 0;

  constructor(...names: string[]) {
    for (const name of names) this.servers.set(name, memorySource());
  }

  get(name: string): ReturnType<typeof memorySource> {
    return this.servers.get(name)!;
  }

  source(): HiSource {
    return {
      description: 'servers',
      reserve: async (segment, request) => {
        if (this.down) throw this.down;
        const server = this.current;
        const blocks = await this.get(server).reserve(segment, request);
        request.server?.(server);
        return blocks;
      },
      raiseAbove: (segment, above) => this.get(this.current).raiseAbove!(segment, above),
      release: (segment, unused) => this.get(this.current).release!(segment, unused),
      server: async () => {
        this.checks++;
        await Promise.resolve();
        if (this.down) throw this.down;
        return this.current;
      },
    };
  }
}

const unreachable = () => new HiLoSourceError('connection refused', { retryable: true });

/** The segment's state as `stats()` reports it (see lifecycle.ts and CONTRIBUTING.md, "The engine's states"). */
const stateOf = (generator: { stats(): Record<string, { state: string }> }, segment: string) =>
  generator.stats()[segment]?.state;

async function until(what: string, check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('failover in the engine', () => {
  it('drops every block reserved on the old server when a reservation reaches another, and keys only grow', async () => {
    const servers = new Servers('primary', 'standby');
    const events: HiLoEvent[] = [];
    let statesAtFailover: (string | undefined)[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: false,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'failover') statesAtFailover = [stateOf(generator, 'a'), stateOf(generator, 'b')];
      },
    });
    await generator.warm(['a', 'b']);
    expect([stateOf(generator, 'a'), stateOf(generator, 'b')]).toEqual(['serving', 'serving']);
    expect(await generator.next('a')).toBe(1);
    expect(await generator.reserve('b', 15)).toHaveLength(15); // b: keys up to 20 reserved
    // the standby saw a's first block only; then it is promoted
    await servers.get('standby').reserve('a', { size: 10, signal: new AbortController().signal });
    servers.current = 'standby';

    // b's last 5 keys in memory are handed out; its next reservation reaches the standby, whose b counter is at 1:
    // a's 9 keys in memory are dropped, b's block 1…10 from the standby too, and b's store is raised above 20
    expect(await generator.reserve('b', 10)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(events.find((e) => e.type === 'failover')).toEqual({
      type: 'failover',
      from: 'primary',
      to: 'standby',
      keysLost: 9,
      change: 'other-server',
    });
    expect(events.filter((e) => e.type === 'lost' && e.reason === 'failover')).toEqual([
      { type: 'lost', segment: 'a', keys: 9, reason: 'failover' },
      { type: 'lost', segment: 'b', keys: 10, reason: 'failover' },
    ]);
    // failover: every segment back to unverified, holding no key, until a block above its floor is kept
    expect(statesAtFailover).toEqual(['unverified', 'unverified']);
    // a's next block came from the standby, above a's 10: the standby had seen a's first block
    expect(await generator.next('a')).toBe(11);
    expect(stateOf(generator, 'a')).toBe('serving');
    expect(generator.stats()['a']!.keysLost).toBe(9);
    await generator.close();
    expect([stateOf(generator, 'a'), stateOf(generator, 'b')]).toEqual(['closed', 'closed']);
  });

  it('notices a failover between reservations through the periodic check, and raises every store at once', async () => {
    const servers = new Servers('primary', 'standby');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: 20,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    expect(generator.nextSync('a')).toBe(1);
    servers.current = 'standby'; // its counter for a is where nothing was reserved
    await until('the failover', () => events.some((e) => e.type === 'failover'));
    expect(generator.tryNextSync('a')).not.toBe(2); // the block's 9 keys are gone
    // raised at once, without waiting for a's next use
    await until('the store raised', () => (servers.get('standby').counters.get('a') ?? 0n) > 10n);
    expect(await generator.next('a')).toBeGreaterThan(10);
    await generator.close();
  });

  it('parks the keys in memory while the server does not answer, and gives them back when the same one does', async () => {
    const servers = new Servers('primary');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: 20,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    expect(generator.nextSync('a')).toBe(1);
    servers.down = unreachable();
    await until('parked', () => events.some((e) => e.type === 'server-unconfirmed'));
    expect(stateOf(generator, 'a')).toBe('parked');
    expect(generator.tryNextSync('a')).toBeUndefined();
    expect(generator.stats()['a']!.keysAvailable).toBe(0);
    servers.down = undefined;
    await until('confirmed', () => events.some((e) => e.type === 'server-confirmed'));
    expect(stateOf(generator, 'a')).toBe('serving');
    expect(generator.nextSync('a')).toBe(2); // the same block, no gap
    expect(generator.stats()['a']!.keysLost).toBe(0);
    await generator.close();
  });

  it('parks right after a reservation of its own lost the connection, before the next check is due', async () => {
    const servers = new Servers('primary');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: 60_000,
      retryBudgetMs: 200,
      retryBaseDelayMs: 1,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a', 'b']);
    servers.down = unreachable();
    await expect(generator.reserve('b', 20)).rejects.toThrow();
    expect(events.some((e) => e.type === 'server-unconfirmed')).toBe(true);
    expect(generator.tryNextSync('a')).toBeUndefined();
    servers.down = undefined;
    expect(await generator.next('a')).toBe(1); // a's reservation reached the same server: the parked block is back
    await generator.close();
  });

  it('never gives back at close keys parked while the server is unconfirmed', async () => {
    const servers = new Servers('primary');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: 20,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    servers.down = unreachable();
    await until('parked', () => events.some((e) => e.type === 'server-unconfirmed'));
    servers.down = undefined;
    servers.current = 'primary';
    await generator.close();
    expect(events.filter((e) => e.type === 'returned')).toEqual([]);
    expect(events).toContainEqual({ type: 'lost', segment: 'a', keys: 10, reason: 'close' });
  });

  it('discards blocks a late answer from the server it left brings, and reserves again', async () => {
    const servers = new Servers('primary', 'standby');
    let late: (() => void) | undefined;
    let first = true;
    const source = servers.source();
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: {
        ...source,
        reserve: async (segment, request) => {
          if (segment !== 'slow' || !first) return source.reserve(segment, request);
          first = false;
          // answered by the primary, delivered after the failover
          const blocks = await servers.get('primary').reserve(segment, request);
          await new Promise<void>((resolve) => (late = resolve));
          request.server?.('primary');
          return blocks;
        },
      },
      ...fixed,
      serverCheckMs: false,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    const slow = generator.next('slow');
    await until('the slow reservation started', () => late !== undefined);
    servers.current = 'standby';
    await generator.reserve('a', 20); // reaches the standby: failover
    expect(events.some((e) => e.type === 'failover')).toBe(true);
    late!();
    // the primary's late block is never used: the retry reserves on the standby
    expect(await slow).toBe(1);
    expect(events).toContainEqual({ type: 'lost', segment: 'slow', keys: 10, reason: 'failover' });
    expect(servers.get('standby').reservations.get('slow')).toBe(1);
    await generator.close();
  }, 15_000);

  it('keeps the floor until a block above it is kept: a late block discarded by the failover cannot lift it', async () => {
    // a source whose reservations do not say which server answered (a source of your own): only checks tell
    const servers = new Servers('primary', 'standby');
    const source = servers.source();
    let hold: Promise<void> | undefined;
    let release: (() => void) | undefined;
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: {
        ...source,
        reserve: async (segment, request) => {
          const blocks = await source.reserve(segment, { ...request, server: undefined });
          if (hold !== undefined) await hold;
          return blocks;
        },
      },
      ...fixed,
      serverCheckMs: 20,
      retryBaseDelayMs: 1,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    await until('the first server known', () => servers.checks > 0);
    const before = await generator.reserve('a', 10); // 1…10, the whole block
    hold = new Promise<void>((resolve) => (release = resolve));
    const next = generator.next('a'); // reserves 11…20 on the primary, held back
    await until('the reservation started', () => servers.get('primary').reservations.get('a') === 2);
    servers.current = 'standby'; // it saw none of a's blocks
    await until('the failover', () => events.some((e) => e.type === 'failover'));
    hold = undefined;
    release!();
    // the primary's 11…20 is discarded (a failover came during its attempt, so it may be the old server's), and the
    // retry on the standby, whose counter is at 1, is raised above the 10 keys handed out, not served from 1 again
    const key = await next;
    expect(before).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(key).toBe(11);
    expect(servers.get('standby').counters.get('a')).toBeGreaterThan(10n);
    expect(events).toContainEqual({ type: 'lost', segment: 'a', keys: 10, reason: 'failover' });
    // hilo's own discard is no sign of a lost server: the keys were never parked for it
    expect(events.some((e) => e.type === 'server-unconfirmed')).toBe(false);
    await generator.close();
  });

  it('hands out no key reserved while the server is unconfirmed, and keeps keys ascending once it is confirmed', async () => {
    const servers = new Servers('primary');
    const source = servers.source();
    let checksDown = false;
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: {
        ...source,
        // reservations work and do not say where they ran; checks fail for a while
        reserve: (segment, request) => source.reserve(segment, { ...request, server: undefined }),
        server: async (signal) => {
          if (checksDown) throw unreachable();
          return source.server!(signal);
        },
      },
      ...fixed,
      serverCheckMs: 20,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    await until('the first server known', () => servers.checks > 0);
    const keys = [generator.nextSync('a')];
    checksDown = true;
    await until('parked', () => events.some((e) => e.type === 'server-unconfirmed'));
    // a caller waiting now gets its key only once the server is confirmed, whatever was reserved meanwhile
    let answered = false;
    const waiting = generator.next('a').then((key) => {
      answered = true;
      return key;
    });
    await until('a reservation while parked', () => servers.get('primary').reservations.get('a')! >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    // the block reserved meanwhile was accepted, then parked with the rest (accept, then park)
    expect(stateOf(generator, 'a')).toBe('parked');
    checksDown = false;
    keys.push(await waiting);
    for (let i = 0; i < 18; i++) keys.push(await generator.next('a'));
    // the parked block's keys first (2…10), then the block reserved while parked: no gap, never backwards
    expect(keys).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await generator.close();
  });

  it("reads the new server's largest stored key after a failover, before its first block is used", async () => {
    const servers = new Servers('primary', 'standby');
    const stored: Record<string, bigint[]> = { primary: [], standby: [100n] };
    const largestOn: string[] = [];
    const storedKeys: StoredKeys = {
      largest: async () => {
        largestOn.push(servers.current);
        const key = stored[servers.current]!.at(-1);
        return key === undefined ? undefined : { key, table: 't', column: 'id' };
      },
      within: async (_segment, block) => {
        const key = stored[servers.current]!.find((k) => k >= block.first && k <= block.last);
        return key === undefined ? undefined : { key, table: 't', column: 'id' };
      },
    };
    const generator = createHiLoGenerator({ source: servers.source(), ...fixed, serverCheckMs: false, storedKeys });
    await generator.warm(['a']);
    expect(await generator.reserve('a', 10)).toHaveLength(10);
    await servers.get('standby').reserve('a', { size: 10, signal: new AbortController().signal });
    servers.current = 'standby'; // it stores key 100, above its hi store: a store behind its rows
    await expect(generator.next('a')).rejects.toBeInstanceOf(HiLoStoreBehindError);
    expect(largestOn).toEqual(['primary', 'standby']);
    // nothing was kept from the standby: the segment is still unverified, holding no key
    expect(stateOf(generator, 'a')).toBe('unverified');
    expect(generator.stats()['a']!.keysAvailable).toBe(0);
    await generator.close();
  });

  it('takes a switch back to a server it left as another failover where identities return (MariaDB)', async () => {
    const servers = new Servers('primary', 'standby');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      // MariaDB's @@server_id is the same when the old primary is primary again
      source: { ...servers.source(), serverMayReturn: true },
      ...fixed,
      serverCheckMs: 20,
      retries: 2,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    const keys = await generator.reserve('a', 10);
    servers.current = 'standby';
    keys.push(...(await generator.reserve('a', 10)));
    servers.current = 'primary'; // back: as after a failback, or on another node of a cluster
    await until('the second failover', () => events.filter((e) => e.type === 'failover').length === 2);
    keys.push(...(await generator.reserve('a', 10)));
    expect(
      events.filter((e) => e.type === 'failover').map((e) => e.type === 'failover' && `${e.from}→${e.to}`),
    ).toEqual(['primary→standby', 'standby→primary']);
    expect(new Set(keys).size).toBe(30);
    expect(keys).toEqual([...keys].sort((x, y) => x - y));
    await generator.close();
  });

  it('discards what a connection still open to the server it left brings, where identities never return (PostgreSQL)', async () => {
    const servers = new Servers('primary', 'standby');
    const source = servers.source();
    let stray = false;
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: {
        ...source,
        reserve: async (segment, request) => {
          if (!stray) return source.reserve(segment, request);
          // one reservation over a connection opened to the old primary before the failover, never fenced
          stray = false;
          const blocks = await servers.get('primary').reserve(segment, request);
          request.server?.('primary');
          return blocks;
        },
      },
      ...fixed,
      serverCheckMs: false,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a']);
    const keys = await generator.reserve('a', 10);
    servers.current = 'standby';
    keys.push(...(await generator.reserve('a', 10))); // the failover: the standby, raised above 10
    stray = true;
    keys.push(...(await generator.reserve('a', 10)));
    // the primary's block is dropped and the retry reaches the standby again: one failover, keys only grow
    expect(events.filter((e) => e.type === 'failover')).toHaveLength(1);
    expect(events).toContainEqual({ type: 'lost', segment: 'a', keys: 10, reason: 'failover' });
    expect(servers.get('primary').reservations.get('a')).toBe(2);
    expect(new Set(keys).size).toBe(30);
    expect(keys).toEqual([...keys].sort((x, y) => x - y));
    await generator.close();
  });

  it('checks again after a failed check, with no periodic checks: the same server gives the parked keys back', async () => {
    const servers = new Servers('primary');
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: false,
      retries: 0,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a', 'b']);
    servers.down = unreachable();
    await expect(generator.reserve('b', 20)).rejects.toThrow();
    await until('parked', () => events.some((e) => e.type === 'server-unconfirmed'));
    const checks = servers.checks;
    await until('a check that failed', () => servers.checks > checks);
    servers.down = undefined;
    // nobody asks for keys, and no periodic check runs: the re-check after the failed one confirms the server
    await until('confirmed', () => events.some((e) => e.type === 'server-confirmed'));
    expect(generator.nextSync('a')).toBe(1);
    await generator.close();
  });

  it('refuses, not retryable, a block not above the keys reserved before a failover from a store it cannot raise', async () => {
    const servers = new Servers('primary', 'standby');
    const { raiseAbove: _, ...source } = servers.source();
    const events: HiLoEvent[] = [];
    const generator = createHiLoGenerator({ source, ...fixed, serverCheckMs: false, onEvent: (e) => events.push(e) });
    await generator.warm(['a']);
    servers.current = 'standby'; // its counter for a is where nothing was reserved: its block is 1…10 again
    const refused = await generator.reserve('a', 20).catch((error: unknown) => error);
    // only moving the store by hand cures it: the caller gets it at once, not after every retry (HILO_EXHAUSTED)
    expect(refused).toBeInstanceOf(HiLoSourceError);
    expect(refused).toMatchObject({ code: 'HILO_SOURCE_FAILED', retryable: false });
    expect((refused as Error).message).toMatch(/not above key 10 .*cannot raise its store.*by hand/);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    await generator.close();
  });

  it('ends the pause of a caller waiting on parked keys at once when the generator closes', async () => {
    const servers = new Servers('primary');
    const source = servers.source();
    let checksDown = false;
    const generator = createHiLoGenerator({
      source: {
        ...source,
        // while checks fail, reservations succeed without naming their server: nothing confirms the parked keys
        reserve: async (segment, request) => {
          if (servers.down) throw servers.down;
          const blocks = await servers.get('primary').reserve(segment, request);
          if (!checksDown) request.server?.('primary');
          return blocks;
        },
        server: async () => {
          servers.checks++;
          await Promise.resolve();
          if (checksDown) throw unreachable();
          return servers.current;
        },
      },
      ...fixed,
      serverCheckMs: false,
      retries: 0,
    });
    await generator.warm(['a', 'b']);
    servers.down = unreachable();
    checksDown = true;
    await expect(generator.reserve('b', 20)).rejects.toThrow(); // parks a's keys
    servers.down = undefined;
    const checks = servers.checks;
    let outcome: unknown = 'pending';
    const waiting = generator.next('a').then(
      (key) => (outcome = key),
      (error: unknown) => (outcome = error),
    );
    // the caller's reservation is parked with the rest, its check of the server fails: it pauses before asking again
    await until('the caller checked the server', () => servers.checks > checks);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBe('pending');
    const closing = generator.close();
    // settled within the turn close() was called in, not when the pause (250 ms) would have ended
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcome).toBeInstanceOf(HiLoClosedError);
    await waiting;
    await closing;
  });

  it('refuses serverCheckMs out of range, and never checks a source that cannot tell servers apart', async () => {
    expect(() => createHiLoGenerator({ source: memorySource(), serverCheckMs: 5 })).toThrow(/serverCheckMs/);
    const generator = createHiLoGenerator({ source: memorySource(), serverCheckMs: 10 });
    expect(await generator.next('a')).toBe(1);
    await generator.close();
  });
});
