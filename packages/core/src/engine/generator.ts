import { checkInteger } from './checks.js';
import { BlockSizing } from './block-sizing.js';
import { beforeDeadline, withTimeout } from './deadline.js';
import { closeAtExit } from './exit-return.js';
import { reserveWithRetry } from './reservation.js';
import { keysIn } from './segment-blocks.js';
import { Segment } from './segment.js';
import { HiLoClosedError, HiLoError, HiLoNotReadyError } from '../errors.js';
import type { HiLoEvent, SegmentStats } from './events.js';
import type { SegmentEvent } from './lifecycle.js';
import { ServerWatch } from './server-watch.js';
import { resolveOptions, validateSegment, type HiLoGeneratorOptions, type ResolvedOptions } from './options.js';
import type { KeyOf, KeyType } from './types.js';
import { PeerCheck, recheckInHand, type LastPeerCheckTarget } from './verified-blocks.js';
import { sourceUnavailableErrors, timeoutErrors } from '../error-messages.js';

/**
 * Hands out keys for named segments from blocks reserved through a hi source.
 * Create one with {@link createHiLoGenerator}; one generator per database (or tenant), never shared.
 */
export interface HiLoGenerator<K extends number | bigint = number> {
  /**
   * The next key of `segment`: from memory when a block is in hand, else after a reservation that all
   * concurrent callers share.
   * @example
   * ```ts
   * const id = await generator.next('orders');
   * ```
   */
  next(segment: string): Promise<K>;
  /**
   * The next key of `segment` from memory, synchronously. When no key is in memory it starts a reservation
   * and throws `HiLoNotReadyError`; `warm()` at start-up and prefetch keep this from happening.
   */
  nextSync(segment: string): K;
  /** Like `nextSync`, but returns `undefined` instead of throwing when no key is in memory. */
  tryNextSync(segment: string): K | undefined;
  /** `count` keys of `segment` for bulk work, in increasing order; reserves in as few round trips as it can. */
  reserve(segment: string, count: number): Promise<K[]>;
  /**
   * Reserves a block for each segment now, so that `nextSync()` is served from memory. Fails fast (one
   * attempt within `timeoutMs`) with a clear error when the database cannot be reached.
   */
  warm(segments: readonly string[]): Promise<void>;
  /**
   * Resolves once at least `count` keys of `segment` are in memory, reserving the shortfall in as few round
   * trips as it can (one, when the block size allows). Call it before creating a batch synchronously —
   * `nextSync()` and the ORM adapters' create hooks then find a key for every entity.
   * @example
   * ```ts
   * await generator.ensure('order_items', 10_000);
   * const items = rows.map((row) => ({ id: generator.nextSync('order_items'), ...row }));
   * ```
   */
  ensure(segment: string, count: number): Promise<void>;
  /**
   * Reports `count` keys of `segment` that were handed out but will never be stored (a graph load that rolled back):
   * they count in `stats().keysLost` and are reported as a `lost` event with reason `discarded`. They are never handed
   * out again: gaps are fine, duplicates never.
   * @example
   * ```ts
   * generator.discard('orders', 500);
   * ```
   */
  discard(segment: string, count: number): void;
  /** The next key as a string id in RavenDB's format: `orders/10`, or `orders/10-A` with a node tag. */
  nextFullId(segment: string): Promise<string>;
  /** Statistics per segment used so far. */
  stats(): Record<string, SegmentStats>;
  /**
   * Stops handing out keys, waits for reservations in flight, gives back the unused tail of each segment's
   * latest block where the source can prove nobody reserved after it, and closes the source, within
   * `closeTimeoutMs`. With a store shared with a peer (an interop preset's `storedKeys` and `peerCheckMs`), it first
   * runs a last peer check over the blocks each segment held since the check's last round, and rejects with the
   * peer's `HiLoMismatchError` (after closing everything) when a segment was refused for it, by that last check or
   * earlier: a run never ends with keys shared with a peer and no word. A last probe that fails is no refusal.
   */
  close(): Promise<void>;
}

/** The most keys one `reserve()` or `ensure()` call may ask for. */
const MAX_COUNT = 100_000_000;

/**
 * Composes segments, reservation and the server watch into the {@link HiLoGenerator} behind `createHiLoGenerator()`.
 * Every state that decides whether a key may be handed out, and every transition, is in lifecycle.ts: the watch
 * changes its own, and what reaches the segments comes back here to be applied to each (`everySegment`).
 */
class KeyGenerator<K extends number | bigint> implements HiLoGenerator<K> {
  private readonly segments = new Map<string, Segment>();
  private readonly options: ResolvedOptions;
  private readonly bigint: boolean;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Cancels the close at process exit (see exit-return.ts); set once a block is reserved from a returning source. */
  private forgetAtExit: (() => void) | undefined;
  /** Which server the blocks in memory came from (DESIGN rule 7). */
  private readonly watch: ServerWatch;
  /** Probes the blocks in hand of a store shared with a peer between reservations (`peerCheckMs`). */
  private readonly peerCheck: PeerCheck;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.bigint = options.keyType === 'bigint';
    this.watch = new ServerWatch(options.source, options.serverCheckMs, options.timeoutMs, {
      park: (server, error) => {
        this.everySegment('park');
        this.emit({ type: 'server-unconfirmed', server, error });
      },
      confirm: (server, how) => {
        this.everySegment('confirm');
        if (how === 'answered') this.emit({ type: 'server-confirmed', server });
      },
      failover: (from, to) => this.failover(from, to),
    });
    this.peerCheck = new PeerCheck(
      options.storedKeys,
      options.peerCheckMs,
      options.timeoutMs,
      () => this.segments.values(),
      this.watch,
    );
  }

  /** Applies a transition that reaches every segment (the server was parked, confirmed). */
  private everySegment(event: SegmentEvent): void {
    for (const s of this.segments.values()) s.transition(event);
  }

  // ---- hot path -------------------------------------------------------------------------------------

  nextSync(segment: string): K {
    const s = this.segments.get(segment);
    if (s !== undefined && s.next <= s.end) {
      const key = s.next++;
      if (key >= s.prefetchMark) this.prefetch(s);
      return (this.bigint ? BigInt(key) : key) as K;
    }
    const key = this.takeSlow(segment);
    if (key === undefined) throw new HiLoNotReadyError(segment);
    return key;
  }

  tryNextSync(segment: string): K | undefined {
    const s = this.segments.get(segment);
    if (s !== undefined && s.next <= s.end) {
      const key = s.next++;
      if (key >= s.prefetchMark) this.prefetch(s);
      return (this.bigint ? BigInt(key) : key) as K;
    }
    return this.takeSlow(segment);
  }

  next(segment: string): Promise<K> {
    const s = this.segments.get(segment);
    if (s !== undefined && s.next <= s.end) {
      const key = s.next++;
      if (key >= s.prefetchMark) this.prefetch(s);
      return Promise.resolve((this.bigint ? BigInt(key) : key) as K);
    }
    return this.nextSlow(segment);
  }

  // ---- slow paths -----------------------------------------------------------------------------------

  /** Takes a key from the queue or the big block; starts a reservation when none is left. */
  private takeSlow(segment: string): K | undefined {
    if (this.closed) throw new HiLoClosedError();
    const s = this.segment(segment);
    if (s.refusal) throw s.refusal;
    const key = s.take(this.bigint, s.low) as K | undefined;
    if (key === undefined && s.inflight === undefined) void this.refill(s).catch(() => undefined);
    return key;
  }

  private async nextSlow(segment: string): Promise<K> {
    const s = this.segment(segment);
    s.demand += 1;
    try {
      for (;;) {
        if (this.closed) throw new HiLoClosedError();
        const recheck = this.recheckQueued(s, 1);
        if (recheck !== undefined) await recheck;
        const key = s.take(this.bigint, s.low) as K | undefined;
        if (key !== undefined) return key;
        await this.refillOrConfirm(s);
      }
    } finally {
      s.demand -= 1;
    }
  }

  async reserve(segment: string, count: number): Promise<K[]> {
    checkInteger('count', count, { min: 0, max: MAX_COUNT });
    const s = this.segment(segment);
    const keys: K[] = [];
    let wanted = count;
    s.demand += wanted;
    try {
      while (keys.length < count) {
        if (this.closed) throw new HiLoClosedError();
        const recheck = this.recheckQueued(s, count - keys.length);
        if (recheck !== undefined) await recheck;
        const before = keys.length;
        s.takeMany(count - keys.length, keys, this.bigint, s.low);
        s.demand -= keys.length - before;
        wanted -= keys.length - before;
        if (keys.length < count) await this.refillOrConfirm(s);
      }
      return keys;
    } finally {
      s.demand -= wanted;
    }
  }

  async ensure(segment: string, count: number): Promise<void> {
    checkInteger('count', count, { min: 0, max: MAX_COUNT });
    const s = this.segment(segment);
    for (;;) {
      if (this.closed) throw new HiLoClosedError();
      const short = count - s.available();
      if (short <= 0) return;
      // counted as waiting demand, so that the next reservation covers the whole shortfall
      s.demand += count;
      try {
        await this.refillOrConfirm(s);
      } finally {
        s.demand -= count;
      }
    }
  }

  discard(segment: string, count: number): void {
    checkInteger('count', count, { min: 0, max: Number.MAX_SAFE_INTEGER });
    this.segment(segment).loseIssued(count, 'discarded');
  }

  async nextFullId(segment: string): Promise<string> {
    const prefix = `${this.options.prefix(segment)}${this.options.separator}`;
    // the stored keys are read as the ids this writes, before its key is drawn (and its block checked)
    this.options.storedKeys?.formatted?.(segment, prefix);
    const key = await this.next(segment);
    const tag = this.options.nodeTag === undefined ? '' : `-${this.options.nodeTag}`;
    return `${prefix}${String(key)}${tag}`;
  }

  async warm(segments: readonly string[]): Promise<void> {
    if (this.closed) throw new HiLoClosedError();
    // a segment named twice (two tables of one segment: a table per tenant) is one block, not one per name
    await Promise.all(
      [...new Set(segments)].map(async (segment) => {
        const s = this.segment(segment);
        if (s.available() > 0) return;
        // warming says keys are wanted soon (nextSync() served from memory): a full block, not the start-up ramp
        const wanted = s.sizing.blockSize;
        s.demand += wanted;
        try {
          await this.refill(s, { attempts: 1 });
        } catch (error) {
          // an error that names its own fix (e.g. no synchronous standby) is not "the database is unreachable"
          if (error instanceof HiLoError && (!error.retryable || error.hint !== undefined)) throw error;
          throw sourceUnavailableErrors.startupFailed(segment, this.options.source.description, error);
        } finally {
          s.demand -= wanted;
        }
      }),
    );
  }

  // ---- segments and reservations ------------------------------------------------------------------------

  private segment(name: string): Segment {
    let s = this.segments.get(name);
    if (s === undefined) {
      validateSegment(name);
      const o = this.options;
      const so = o.segments[name];
      const blockSize = so?.blockSize ?? o.blockSize;
      const sizing = new BlockSizing(
        blockSize,
        so?.maxBlockSize ?? Math.max(blockSize, o.maxBlockSize),
        o.adaptiveTargetMs,
        // the start-up ramp is part of sizing from use: `adaptive: false` reserves exactly `blockSize` each time
        o.adaptiveTargetMs === undefined ? blockSize : Math.min(o.firstBlockSize, blockSize),
      );
      s = new Segment(
        name,
        o,
        sizing,
        so?.maxKey ?? o.maxKey,
        this.watch,
        (low) => this.prefetch(low),
        () => this.peerCheck.start(),
      );
      // the peer check also counts the stored keys of blocks used up since its last round (and close() of those
      // since then): kept only when it runs
      if (this.peerCheck.enabled) {
        s.retired = [];
        s.probed = [];
      }
      this.segments.set(name, s);
    }
    return s;
  }

  /**
   * An awaited draw about to reach a queued block (a prefetched one, checked when it was reserved) first checks the
   * keys in hand against the tables found since (`StoredKeys.recheck`: a tenant created while the application runs),
   * so that a block checked before the tenant existed is not handed out unchecked; `undefined` when there is nothing
   * to check. One check at a time per segment. (Synchronous draws cannot wait: theirs is the check each reservation
   * runs first.)
   */
  private recheckQueued(s: Segment, wanted: number): Promise<void> | undefined {
    const storedKeys = this.options.storedKeys;
    if (storedKeys?.recheck === undefined || s.queue.length === 0 || s.currentRest() >= wanted) return undefined;
    if (s.rechecking === undefined) {
      const timeoutMs = this.options.timeoutMs;
      s.rechecking = withTimeout(
        timeoutMs,
        () => timeoutErrors.recheckTimedOut(s.name, timeoutMs),
        (signal) => recheckInHand(storedKeys, s.name, s, signal),
      ).finally(() => (s.rechecking = undefined));
    }
    return s.rechecking;
  }

  /** Starts a background reservation for `s` unless one is running or a block is queued. */
  private prefetch(s: Segment): void {
    s.prefetchMark = Number.POSITIVE_INFINITY;
    if (this.closed || s.inflight !== undefined || s.queue.length > 0) return;
    // Started on the next turn of the event loop, not inside the call that crossed the mark: starting a
    // reservation (a driver building and sending a query) would otherwise land on that caller's latency.
    setImmediate(() => {
      if (this.closed || s.inflight !== undefined || s.queue.length > 0) return;
      void this.refill(s).catch(() => undefined);
    });
  }

  /** Single flight: the reservation in flight for `s`, or a new one. */
  private refill(s: Segment, opts?: { attempts: number }): Promise<void> {
    if (this.closed) return Promise.reject(new HiLoClosedError());
    if (s.overflow) return Promise.reject(s.overflow);
    if (s.refusal) return Promise.reject(s.refusal);
    if (s.inflight) return s.inflight;
    const controller = new AbortController();
    s.inflightAbort = controller;
    const flight = reserveWithRetry(
      this.options,
      s,
      this.watch,
      controller.signal,
      opts?.attempts ?? this.options.retries + 1,
    ).finally(() => {
      s.inflight = undefined;
      s.inflightAbort = undefined;
    });
    s.inflight = flight;
    // keys in memory that the source could take back: return them if the process ends without close()
    if (this.options.source.release !== undefined && this.forgetAtExit === undefined) {
      this.forgetAtExit = closeAtExit(() => this.close());
    }
    return flight;
  }

  /**
   * For a caller waiting for keys: a reservation, then, when the keys are parked (the server is unconfirmed), a
   * check of the server, which hands them out or discards them, instead of reserving block after block.
   */
  private async refillOrConfirm(s: Segment): Promise<void> {
    await this.refill(s);
    if (this.watch.unconfirmed) await this.watch.waitForServer();
  }

  /**
   * hilo is on another server than the one its blocks were reserved on: every block in memory or parked is
   * discarded, and each segment's later keys must lie above every key it reserved before (its `floor`).
   */
  private failover(from: string, to: string): void {
    let keysLost = 0;
    const change = this.options.source.serverChange?.(from, to) ?? 'other-server';
    // every segment back to `unverified`: the new server's stored keys are read again before its first block is
    // handed out, and that block lies above the segment's floor
    const lostAs = change === 'restart' ? 'restart' : 'failover';
    for (const s of this.segments.values()) keysLost += keysIn(s.transition('failover', lostAs));
    this.emit({ type: 'failover', from, to, keysLost, change });
    // raise each store above the keys reserved before at once, not at the segment's next use: a process starting
    // on the new server meanwhile gets blocks below them, and every later block (ours and its) lies above
    setImmediate(() => {
      for (const s of this.segments.values()) {
        if (!this.closed && s.floor !== undefined) void this.refill(s).catch(() => undefined);
      }
    });
    // a restart keeps what the server committed, unless it crashed with fsync or synchronous_commit off, or was a
    // snapshot restored in place: nothing tells those apart, so the keys go either way; only the words differ
    process.emitWarning(
      change === 'restart'
        ? `hilo: the database server restarted (${from} → ${to}: the same system and timeline, started again); ` +
            `${keysLost} keys reserved before the restart were discarded, since a server that crashed with fsync ` +
            `or synchronous_commit off, or was restored in place, may hand them out again; every later key is ` +
            `above every key reserved before. No failover happened.`
        : `hilo: the database server changed (${from} → ${to}), ${
            change === 'promotion' ? 'a new timeline: a standby was promoted, or a backup restored' : 'another server'
          }; ${keysLost} keys reserved on the old server were discarded, and every later key is above every key ` +
            `reserved before.`,
      { code: change === 'restart' ? 'HILO_SERVER_RESTART' : 'HILO_FAILOVER' },
    );
  }

  private emit(event: HiLoEvent): void {
    this.options.onEvent?.(event);
  }

  // ---- reporting and shutdown ---------------------------------------------------------------------------

  stats(): Record<string, SegmentStats> {
    const out: Record<string, SegmentStats> = {};
    for (const s of this.segments.values()) out[s.name] = s.snapshot();
    return out;
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true;
    this.forgetAtExit?.();
    // bounded: on a stalled connection, stop waiting and leave gaps (never duplicates: nothing is handed out after close)
    const deadline = performance.now() + this.options.closeTimeoutMs;
    // keys parked while the server is unconfirmed are never given back: the server may not be the one they came from
    const unconfirmed = this.watch.unconfirmed;
    this.watch.stop();
    // what the last peer check probes: the blocks each serving segment holds, as they are before it closes
    const last: LastPeerCheckTarget[] = [];
    if (this.peerCheck.enabled && !unconfirmed) {
      for (const s of this.segments.values()) {
        if (s.state !== 'serving') continue;
        // the used-up blocks rounds probed are probed again: a peer may have written into one since
        const retired = [...(s.probed?.splice(0) ?? []), ...(s.retired?.splice(0) ?? [])];
        last.push({ target: s, unissued: s.unissued(), held: s.held(), retired });
      }
    }
    // every segment `closed` at once: no key in memory is handed out from here on
    const unusedOf = new Map<Segment, ReturnType<Segment['transition']>>();
    for (const s of this.segments.values()) unusedOf.set(s, s.transition('close'));
    const pending: Promise<unknown>[] = [this.peerCheck.stop(deadline)];
    for (const s of this.segments.values()) {
      s.inflightAbort?.abort(new HiLoClosedError());
      if (s.inflight) pending.push(s.inflight.catch(() => undefined));
    }
    await beforeDeadline(Promise.all(pending), deadline);
    // never silent at the end: a peer that wrote into these blocks since the last round (a run shorter than one
    // `peerCheckMs`) refuses the segment now, and close() rejects with it below
    await this.peerCheck.last(last, deadline);
    const source = this.options.source;
    for (const [s, unused] of unusedOf) {
      if (unused.length === 0) continue;
      if (s.refusal !== undefined) {
        // a peer reads these keys differently: never given back to the store, lost as the peer's
        s.lose(unused, 'mismatch');
        continue;
      }
      const latest = unused[unused.length - 1]!;
      let returned = 0;
      if (source.release && s.overflow === undefined && !unconfirmed) {
        try {
          if ((await beforeDeadline(source.release(s.name, latest), deadline)) === true) returned = keysIn([latest]);
        } catch {
          // a failed return leaves a gap, never a duplicate
        }
      }
      const total = keysIn(unused);
      if (returned > 0) {
        s.stats.keysReturned += returned;
        this.emit({ type: 'returned', segment: s.name, keys: returned });
      }
      if (total - returned > 0) {
        s.stats.keysLost += total - returned;
        this.emit({ type: 'lost', segment: s.name, keys: total - returned, reason: 'close' });
      }
    }
    await beforeDeadline(Promise.resolve(source.close?.()), deadline);
    // the run's last word: a segment a peer was found writing into (by any check, the last one included) rejects
    // close() with the peer's mismatch error, after everything above was closed
    for (const s of this.segments.values()) if (s.refusal !== undefined) throw s.refusal;
  }

  /** See {@link checkPeersNow}. */
  checkPeersNow(): Promise<void> {
    return this.peerCheck.checkNow();
  }
}

/**
 * Internal, for tests: runs one round of `generator`'s peer check that starts after this call (see `peerCheckMs`)
 * and resolves once it has refused what it found, so a test asserts what the check does rather than how soon the
 * timer fires. Does nothing without a store shared with a peer, or after `close()`.
 */
export function checkPeersNow<K extends number | bigint>(generator: HiLoGenerator<K>): Promise<void> {
  if (!(generator instanceof KeyGenerator))
    throw new TypeError('checkPeersNow() takes a generator of createHiLoGenerator()');
  return generator.checkPeersNow();
}

/**
 * Creates a hi/lo generator over a hi source.
 * @example
 * ```ts
 * const generator = createHiLoGenerator({ source: sequenceSource(client, { increment: 100 }), blockSize: 100 });
 * await generator.warm(['orders']);
 * const id = generator.nextSync('orders');
 * ```
 */
export function createHiLoGenerator(
  options: HiLoGeneratorOptions<'number'> & { keyType?: 'number' },
): HiLoGenerator<number>;
export function createHiLoGenerator(
  options: HiLoGeneratorOptions<'bigint'> & { keyType: 'bigint' },
): HiLoGenerator<bigint>;
export function createHiLoGenerator<T extends KeyType>(options: HiLoGeneratorOptions<T>): HiLoGenerator<KeyOf<T>>;
export function createHiLoGenerator(options: HiLoGeneratorOptions<KeyType>): HiLoGenerator<number | bigint> {
  return new KeyGenerator<number | bigint>(resolveOptions(options));
}
