// The peer check (issue #46, item 7): with a store shared with a peer (an interop preset's storedKeys), the blocks in
// hand are probed every peerCheckMs between reservations, so a peer writing into a block hilo holds is refused within
// one interval, not at hilo's next reservation. Over a memory source and stored keys kept in a Set: what is probed,
// when, what is refused, and that the timer stops. The real peers (Hibernate 3.6, a plain SQL writer) run in
// hibernate-mismatch.*.test.ts and peer-check.*.test.ts.
import {
  createHiLoGenerator,
  HiLoConfigurationError,
  HiLoMismatchError,
  HiLoSourceError,
  memorySource,
  type Block,
  type HiLoEvent,
  type HiSource,
  type StoredKeys,
  type StoreOverlap,
} from 'hilo-core';
import { checkPeersNow } from '../src/engine/generator.js';

const fixed = { adaptive: false, prefetchAt: false, blockSize: 10 } as const;

/** Probes of stored keys kept in `keys`, as a peer's: overlaps become a HiLoMismatchError; every probe is recorded. */
class PeerStore {
  readonly keys = new Set<bigint>();
  /** Keys stored a second time (rows of a table without a unique key): counted by `counts`. */
  readonly again: bigint[] = [];
  readonly found: StoreOverlap[] = [];
  /** Each probe as it finished: `within 3-10 -> 8` or `within 3-10 -> none`. */
  readonly probes: string[] = [];
  /** When set, every probe rejects with it (a lost connection). */
  down: Error | undefined;
  /** When set, `within` waits for it (a slow probe). */
  gate: Promise<void> | undefined;
  inFlight = 0;
  maxInFlight = 0;

  /** `withCounts`: also counts the keys stored in a block (with `again`), as the SQL sources do. */
  storedKeys(withSharedWith = true, withCounts = false): StoredKeys {
    const max = (filter: (k: bigint) => boolean) => {
      const found = [...this.keys].filter(filter);
      return found.length === 0
        ? undefined
        : { key: found.reduce((a, b) => (a > b ? a : b)), table: 'orders', column: 'id' };
    };
    const probe = async <T>(what: string, work: () => T): Promise<T> => {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      try {
        await Promise.resolve();
        if (this.gate !== undefined) await this.gate;
        if (this.down !== undefined) throw this.down;
        const result = work();
        this.probes.push(`${what} -> ${(result as { key?: bigint } | undefined)?.key ?? 'none'}`);
        return result;
      } finally {
        this.inFlight--;
      }
    };
    return {
      largest: (segment) => probe(`largest ${segment}`, () => max(() => true)),
      within: (segment, block: Block) =>
        probe(`within ${block.first}-${block.last}`, () => max((k) => k >= block.first && k <= block.last)),
      ...(withCounts
        ? {
            counts: (segment: string, block: Block) =>
              probe(`counts ${block.first}-${block.last}`, () => {
                const inBlock = (k: bigint) => k >= block.first && k <= block.last;
                const keys = [...this.keys].filter(inBlock).length + this.again.filter(inBlock).length;
                return [{ table: 'orders', column: 'id', keys: BigInt(keys) }];
              }),
          }
        : {}),
      ...(withSharedWith
        ? {
            sharedWith: {
              mismatch: (overlap: StoreOverlap) => {
                this.found.push(overlap);
                return new HiLoMismatchError(`peer reads it differently (${overlap.where})`);
              },
            },
          }
        : {}),
    };
  }

  /** How many `within` probes of keys in hand ran. */
  withinProbes(): number {
    return this.probes.filter((p) => p.startsWith('within')).length;
  }
}

/** Waits for `check`; `ms` only detects a hang (far above any delay a loaded machine adds), it measures nothing. */
async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest `peerCheckMs` (an hour): the timer never fires within a test, which runs each round itself. */
const PAUSED = 3_600_000;

describe('the peer check: blocks in hand probed every peerCheckMs (issue #46, item 7)', () => {
  it('a peer key inside the block in hand is refused by the next round after it, without a reservation', async () => {
    const peer = new PeerStore();
    const events: HiLoEvent[] = [];
    const source = memorySource();
    // the timer paused (the longest interval): every round runs when the test says, through checkPeersNow
    const hilo = createHiLoGenerator({
      ...fixed,
      source,
      storedKeys: peer.storedKeys(),
      peerCheckMs: PAUSED,
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.reserve('orders', 3)).toEqual([1, 2, 3]);
    for (const k of [1n, 2n, 3n]) peer.keys.add(k);
    // rounds that find nothing: hilo's own keys (handed out) are no alarm
    const reservation = peer.withinProbes();
    await checkPeersNow(hilo);
    await checkPeersNow(hilo);
    expect(peer.withinProbes()).toBe(reservation + 2);
    expect(peer.found).toEqual([]);
    expect(hilo.nextSync('orders')).toBe(4);
    const before = peer.probes.length;
    peer.keys.add(8n); // the peer, reading the store with other settings, writes into hilo's block
    // no round yet: nothing refuses by itself
    expect(peer.probes.length).toBe(before);
    expect(hilo.stats().orders?.state).toBe('serving');
    await checkPeersNow(hilo);
    // the first round after the peer's write found it, before another key was handed out
    expect(peer.probes.slice(before).filter((p) => p.startsWith('within'))).toEqual(['within 5-10 -> 8']);
    expect(peer.found).toEqual([
      {
        segment: 'orders',
        stored: { key: 8n, table: 'orders', column: 'id' },
        block: { first: 5n, last: 10n },
        where: 'in-hand',
      },
    ]);
    // as the reservation's check refuses it: the keys in hand lost (mismatch), every later call rejects with it
    expect(events).toContainEqual({ type: 'lost', segment: 'orders', keys: 6, reason: 'mismatch' });
    expect(() => hilo.nextSync('orders')).toThrow(HiLoMismatchError);
    const error = await hilo.next('orders').catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'peer reads it differently (in-hand)', retryable: false });
    expect(() => hilo.tryNextSync('orders')).toThrow(error as Error);
    expect(source.reservations.get('orders')).toBe(1);
    expect(hilo.stats().orders).toMatchObject({ keysIssued: 4, keysAvailable: 0, keysLost: 6 });
    // refused for good: not probed again
    const after = peer.probes.length;
    await checkPeersNow(hilo);
    expect(peer.probes.length).toBe(after);
    // and close() says so once more: the run's last word
    await expect(hilo.close()).rejects.toBe(error);
  });

  it('the timer runs the rounds: a peer key is refused without a call to checkPeersNow', async () => {
    const peer = new PeerStore();
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    peer.keys.add(8n);
    await until('refused by the timer', () => peer.found.length > 0);
    expect(() => hilo.nextSync('orders')).toThrow(HiLoMismatchError);
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it('the same overlap, refused by the reservation with peerCheckMs: false, reads the same', async () => {
    const peer = new PeerStore();
    const events: HiLoEvent[] = [];
    const hilo = createHiLoGenerator({
      adaptive: false,
      blockSize: 10,
      prefetchAt: 0.5,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: false,
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.reserve('orders', 4)).toEqual([1, 2, 3, 4]);
    peer.keys.add(8n);
    await sleep(80);
    expect(peer.found).toEqual([]); // no probe between reservations
    expect(hilo.nextSync('orders')).toBe(5); // the prefetch mark: the reservation probes the keys in hand first
    await until('refused', () => peer.found.length > 0);
    expect(peer.found.map((f) => [f.where, f.stored.key, f.block.first, f.block.last])).toEqual([
      ['in-hand', 8n, 6n, 10n],
    ]);
    expect(events).toContainEqual({ type: 'lost', segment: 'orders', keys: 5, reason: 'mismatch' });
    await expect(hilo.next('orders')).rejects.toMatchObject({ message: 'peer reads it differently (in-hand)' });
    await expect(hilo.close()).rejects.toMatchObject({ message: 'peer reads it differently (in-hand)' });
  });

  it('close() stops it: no probe after close, and the timer never keeps Node alive', async () => {
    const peer = new PeerStore();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const idle = timers();
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    await until('probing', () => peer.withinProbes() >= 2);
    expect(timers()).toBe(idle); // unref'd
    await hilo.close();
    const probes = peer.probes.length;
    peer.keys.add(5n);
    await sleep(100);
    expect(peer.probes.length).toBe(probes);
    expect(peer.found).toEqual([]);
  });

  it('close() waits for a probe in flight, so none runs after close resolves', async () => {
    const peer = new PeerStore();
    let release!: () => void;
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    peer.gate = new Promise((resolve) => (release = resolve));
    await until('a probe waits', () => peer.inFlight > 0);
    const closed = hilo.close();
    await sleep(20);
    expect(peer.inFlight).toBe(1);
    release();
    await closed;
    expect(peer.inFlight).toBe(0);
  });

  it('never overlaps itself: a slow probe is not doubled by the next tick', async () => {
    const peer = new PeerStore();
    let release!: () => void;
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    peer.gate = new Promise((resolve) => (release = resolve));
    await until('a probe waits', () => peer.inFlight > 0);
    await sleep(100); // ten intervals
    expect(peer.maxInFlight).toBe(1);
    peer.gate = undefined;
    release();
    await until('probing again', () => peer.withinProbes() >= 3);
    expect(peer.maxInFlight).toBe(1);
    await hilo.close();
  });

  it('a failed probe (a lost connection) is unknown, not a refusal; the next one that answers refuses', async () => {
    const peer = new PeerStore();
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    peer.down = new Error('Connection terminated unexpectedly');
    await sleep(60);
    expect(peer.found).toEqual([]);
    expect(hilo.nextSync('orders')).toBe(2); // keys are still handed out
    peer.keys.add(9n);
    await sleep(60);
    expect(peer.found).toEqual([]);
    expect(hilo.nextSync('orders')).toBe(3);
    peer.down = undefined;
    await until('refused', () => peer.found.length > 0);
    expect(() => hilo.nextSync('orders')).toThrow(HiLoMismatchError);
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it('keys hilo hands out while the probe runs are its own: no alarm', async () => {
    const peer = new PeerStore();
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    expect(await hilo.next('orders')).toBe(1);
    let release!: () => void;
    peer.gate = new Promise((resolve) => (release = resolve));
    await until('a probe waits', () => peer.inFlight > 0);
    // the application takes 2…6 and stores them while the probe of 2…10 runs
    for (let i = 0; i < 5; i++) peer.keys.add(BigInt(hilo.nextSync('orders')));
    peer.gate = undefined;
    release();
    await until('more rounds', () => peer.withinProbes() >= 3);
    expect(peer.found).toEqual([]);
    expect(hilo.nextSync('orders')).toBe(7);
    await hilo.close();
  });

  it('probes nothing with no block in hand, and only the keys never handed out', async () => {
    const peer = new PeerStore();
    const hilo = createHiLoGenerator({
      ...fixed,
      source: memorySource(),
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
    });
    await sleep(60);
    expect(peer.probes).toEqual([]); // no block yet: no timer
    expect(await hilo.reserve('orders', 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const probes = peer.probes.length;
    await sleep(60);
    // every key of the block handed out: nothing a peer could take from hilo, the next reservation probes it
    expect(peer.probes.length).toBe(probes);
    await hilo.close();
  });

  it('a reservation in flight when the peer check refuses hands out none of its keys', async () => {
    const peer = new PeerStore();
    const events: HiLoEvent[] = [];
    const memory = memorySource();
    let release!: () => void;
    const gate: { wait?: Promise<void> } = {};
    const slow: HiSource = {
      ...memory,
      description: 'slow memory source',
      reserve: async (segment, request) => {
        const blocks = await memory.reserve(segment, request);
        if (gate.wait !== undefined) await gate.wait;
        return blocks;
      },
    };
    const hilo = createHiLoGenerator({
      adaptive: false,
      blockSize: 10,
      prefetchAt: 0.5,
      source: slow,
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.reserve('orders', 3)).toEqual([1, 2, 3]);
    gate.wait = new Promise((resolve) => (release = resolve));
    expect(await hilo.reserve('orders', 2)).toEqual([4, 5]); // the prefetch mark: a reservation starts and waits
    await sleep(5);
    peer.keys.add(9n);
    await until('refused', () => peer.found.length > 0);
    release();
    await expect(hilo.next('orders')).rejects.toBeInstanceOf(HiLoMismatchError);
    await sleep(20);
    expect(events.filter((e) => e.type === 'lost')).toEqual([
      { type: 'lost', segment: 'orders', keys: 5, reason: 'mismatch' },
      { type: 'lost', segment: 'orders', keys: 10, reason: 'mismatch' },
    ]);
    expect(events.filter((e) => e.type === 'reserved')).toHaveLength(1);
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  it('probes nothing while the server is unconfirmed (keys parked), and again once it answers', async () => {
    const peer = new PeerStore();
    const memory = memorySource();
    const state: { down?: Error } = {};
    const source: HiSource = {
      ...memory,
      description: 'memory source with a server',
      reserve: async (segment, request) => {
        const blocks = await memory.reserve(segment, request);
        request.server?.('primary');
        return blocks;
      },
      server: async () => {
        await Promise.resolve();
        if (state.down !== undefined) throw state.down;
        return 'primary';
      },
    };
    const events: HiLoEvent[] = [];
    const hilo = createHiLoGenerator({
      ...fixed,
      source,
      storedKeys: peer.storedKeys(),
      peerCheckMs: 10,
      serverCheckMs: 10,
      onEvent: (e) => events.push(e),
    });
    expect(await hilo.next('orders')).toBe(1);
    await until('probing', () => peer.withinProbes() >= 1);
    state.down = new HiLoSourceError('connection refused', { retryable: true });
    await until('parked', () => events.some((e) => e.type === 'server-unconfirmed'));
    await checkPeersNow(hilo); // a round already running when the keys were parked ends, and the next probes nothing
    const probes = peer.withinProbes();
    peer.keys.add(7n);
    await sleep(60);
    expect(peer.withinProbes()).toBe(probes);
    expect(peer.found).toEqual([]);
    state.down = undefined;
    await until('refused', () => peer.found.length > 0);
    expect(peer.found.map((f) => [f.where, f.stored.key])).toEqual([['in-hand', 7n]]);
    await expect(hilo.close()).rejects.toBeInstanceOf(HiLoMismatchError);
  });

  describe('close() runs a last round (issue #52, item 5): a run never ends with shared keys and no word', () => {
    it('a peer key written since the last round rejects close() with the mismatch error', async () => {
      const peer = new PeerStore();
      const events: HiLoEvent[] = [];
      const hilo = createHiLoGenerator({
        ...fixed,
        source: memorySource(),
        storedKeys: peer.storedKeys(),
        peerCheckMs: PAUSED, // the run ends within one interval: no round ran before close
        onEvent: (e) => events.push(e),
      });
      expect(await hilo.next('orders')).toBe(1);
      const probes = peer.probes.length; // the reservation's
      peer.keys.add(8n);
      const error = await hilo.close().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoMismatchError);
      expect(error).toMatchObject({ message: 'peer reads it differently (in-hand)', retryable: false });
      expect(peer.probes.slice(probes)).toEqual(['within 2-10 -> 8']);
      expect(peer.found.map((f) => [f.where, f.stored.key, f.block.first, f.block.last])).toEqual([
        ['in-hand', 8n, 2n, 10n],
      ]);
      // the keys in hand are the peer's now: lost as a mismatch, never given back
      expect(events.filter((e) => e.type === 'lost' || e.type === 'returned')).toEqual([
        { type: 'lost', segment: 'orders', keys: 9, reason: 'mismatch' },
      ]);
      expect(hilo.stats().orders?.state).toBe('closed');
      // close() is idempotent: the same verdict again
      await expect(hilo.close()).rejects.toBe(error);
    });

    it('the last round counts the blocks used up since the previous round', async () => {
      const peer = new PeerStore();
      const hilo = createHiLoGenerator({
        ...fixed,
        source: memorySource(),
        storedKeys: peer.storedKeys(true, true),
        peerCheckMs: PAUSED,
      });
      // hilo hands out and stores 1…10 (its first block, used up) and 11 (the next block's first key)
      for (const key of await hilo.reserve('orders', 10)) peer.keys.add(BigInt(key));
      peer.keys.add(BigInt(await hilo.next('orders')));
      // the peer stores 5 a second time: eleven keys stored in a block of ten
      peer.again.push(5n);
      const error = await hilo.close().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoMismatchError);
      expect(peer.found).toMatchObject([{ block: { first: 1n, last: 10n }, counted: { keys: 11n, handedOut: 10n } }]);
    });

    it("a round that ran after the peer's write leaves close() nothing new to say, and hilo's own keys are no alarm", async () => {
      const peer = new PeerStore();
      const hilo = createHiLoGenerator({
        ...fixed,
        source: memorySource(),
        storedKeys: peer.storedKeys(true, true),
        peerCheckMs: PAUSED,
      });
      for (const key of await hilo.reserve('orders', 10)) peer.keys.add(BigInt(key));
      for (let i = 0; i < 3; i++) peer.keys.add(BigInt(await hilo.next('orders')));
      await checkPeersNow(hilo);
      expect(peer.found).toEqual([]);
      await hilo.close();
      expect(peer.found).toEqual([]);
    });

    it('a last probe that fails or never answers is no refusal, and close() still resolves', async () => {
      for (const fault of ['down', 'stalled'] as const) {
        const peer = new PeerStore();
        const hilo = createHiLoGenerator({
          ...fixed,
          source: memorySource(),
          storedKeys: peer.storedKeys(),
          peerCheckMs: PAUSED,
          closeTimeoutMs: 200,
        });
        expect(await hilo.next('orders')).toBe(1);
        peer.keys.add(8n);
        if (fault === 'down') peer.down = new Error('Connection terminated unexpectedly');
        else peer.gate = new Promise<void>(() => undefined); // a database that never answers
        // the jest timeout is the hang detector: close() ends at closeTimeoutMs
        await expect(hilo.close()).resolves.toBeUndefined();
        expect(peer.found).toEqual([]);
      }
    });

    it('with peerCheckMs: false, close() probes nothing', async () => {
      const peer = new PeerStore();
      const hilo = createHiLoGenerator({
        ...fixed,
        source: memorySource(),
        storedKeys: peer.storedKeys(),
        peerCheckMs: false,
      });
      expect(await hilo.next('orders')).toBe(1);
      const probes = peer.probes.length;
      peer.keys.add(8n);
      await hilo.close();
      expect(peer.probes.length).toBe(probes);
    });
  });

  it('peerCheckMs is validated, and refused without a shared store', () => {
    const peer = new PeerStore();
    const source = memorySource();
    for (const bad of [5, 0, 1.5, 3_600_001, true, '100']) {
      expect(() => createHiLoGenerator({ source, storedKeys: peer.storedKeys(), peerCheckMs: bad as number })).toThrow(
        /Expected `peerCheckMs` to be an integer from 10 to 3600000/,
      );
    }
    expect(() => createHiLoGenerator({ source, peerCheckMs: 100 })).toThrow(HiLoConfigurationError);
    expect(() => createHiLoGenerator({ source, storedKeys: peer.storedKeys(false), peerCheckMs: false })).toThrow(
      /`peerCheckMs` applies only with an interop preset's `storedKeys`/,
    );
    expect(() => createHiLoGenerator({ source, storedKeys: peer.storedKeys(), peerCheckMs: 10 })).not.toThrow();
  });

  it("is not run with a store that is not shared (createHiLo's own storedKeys)", async () => {
    const peer = new PeerStore();
    const hilo = createHiLoGenerator({ ...fixed, source: memorySource(), storedKeys: peer.storedKeys(false) });
    expect(await hilo.next('orders')).toBe(1);
    const probes = peer.probes.length;
    await sleep(1100); // past the default interval (1000 ms), which applies only to a shared store
    expect(peer.probes.length).toBe(probes);
    await hilo.close();
  });
});
