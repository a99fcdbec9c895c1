// The engine side of failover (issue #40, DESIGN rule 7), over memory sources standing for servers: a source that
// says which server it reached, and "servers" whose counters differ as a primary's and a lagging standby's do.
// What happens to the blocks in memory, in what order, and that keys only grow. Real servers: failover.postgres.test.ts.
import { createHiLoGenerator, HiLoSourceError, memorySource, type HiLoEvent, type HiSource } from 'hilo-core';

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
    const generator = createHiLoGenerator({
      source: servers.source(),
      ...fixed,
      serverCheckMs: false,
      onEvent: (e) => events.push(e),
    });
    await generator.warm(['a', 'b']);
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
    });
    expect(events.filter((e) => e.type === 'lost' && e.reason === 'failover')).toEqual([
      { type: 'lost', segment: 'a', keys: 9, reason: 'failover' },
      { type: 'lost', segment: 'b', keys: 10, reason: 'failover' },
    ]);
    // a's next block came from the standby, above a's 10: the standby had seen a's first block
    expect(await generator.next('a')).toBe(11);
    expect(generator.stats()['a']!.keysLost).toBe(9);
    await generator.close();
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
    expect(generator.tryNextSync('a')).toBeUndefined();
    expect(generator.stats()['a']!.keysAvailable).toBe(0);
    servers.down = undefined;
    await until('confirmed', () => events.some((e) => e.type === 'server-confirmed'));
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

  it('refuses serverCheckMs out of range, and never checks a source that cannot tell servers apart', async () => {
    expect(() => createHiLoGenerator({ source: memorySource(), serverCheckMs: 5 })).toThrow(/serverCheckMs/);
    const generator = createHiLoGenerator({ source: memorySource(), serverCheckMs: 10 });
    expect(await generator.next('a')).toBe(1);
    await generator.close();
  });
});
