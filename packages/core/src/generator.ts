import { checkInteger } from './checks.js';
import {
  HiLoClosedError,
  HiLoConfigurationError,
  HiLoError,
  HiLoExhaustedError,
  HiLoNotReadyError,
  HiLoOverflowError,
  HiLoSourceError,
  HiLoSourceUnavailableError,
  HiLoTimeoutError,
} from './errors.js';
import type { HiLoEvent, SegmentStats } from './events.js';
import { resolveOptions, validateSegment, type HiLoGeneratorOptions, type ResolvedOptions } from './options.js';
import type { Block, KeyOf, KeyType } from './types.js';

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
  /** The next key as a string id in RavenDB's format: `orders/10`, or `orders/10-A` with a node tag. */
  nextFullId(segment: string): Promise<string>;
  /** Statistics per segment used so far. */
  stats(): Record<string, SegmentStats>;
  /**
   * Stops handing out keys, waits for reservations in flight, gives back the unused tail of each segment's
   * latest block where the source can prove nobody reserved after it, and closes the source.
   */
  close(): Promise<void>;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** The most keys one `reserve()` or `ensure()` call may ask for. */
const MAX_COUNT = 100_000_000;

interface SegmentState {
  readonly name: string;
  /** Next key of the current block and its last key, as numbers (fast path). `next > end` when empty. */
  next: number;
  end: number;
  /** First key of the current block, to count issued keys without touching the hot path. */
  first: number;
  /** Handing out this key (or a later one) starts the background reservation. */
  prefetchMark: number;
  /** Current block beyond Number.MAX_SAFE_INTEGER (bigint keys only). */
  bigNext: bigint;
  bigEnd: bigint;
  /** Blocks in hand after the current one, ascending. */
  readonly queue: Block[];
  inflight: Promise<void> | undefined;
  inflightAbort: AbortController | undefined;
  prepared: Promise<void> | undefined;
  /** Keys callers are waiting for right now (bulk requests and awaited next()). */
  demand: number;
  blockSize: number;
  readonly minBlockSize: number;
  readonly maxBlockSize: number;
  lastReservationAt: number;
  issuedAtLastReservation: number;
  /** Keys issued from blocks no longer current. */
  issuedBefore: number;
  overflow: HiLoOverflowError | undefined;
  /** The largest key the segment's column holds, the highest key reserved, and whether 90 % was reported. */
  readonly maxKey: bigint;
  highestKey: bigint;
  headroomWarned: boolean;
  readonly stats: {
    keysReserved: number;
    keysReturned: number;
    keysLost: number;
    reservations: number;
    blocksReserved: number;
    failedAttempts: number;
    lastReservationMs: number;
    totalReservationMs: number;
    maxReservationMs: number;
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

class Generator<K extends number | bigint> implements HiLoGenerator<K> {
  private readonly states = new Map<string, SegmentState>();
  private readonly o: ResolvedOptions;
  private readonly bigint: boolean;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: ResolvedOptions) {
    this.o = options;
    this.bigint = options.keyType === 'bigint';
  }

  // ---- hot path -------------------------------------------------------------------------------------

  nextSync(segment: string): K {
    const s = this.states.get(segment);
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
    const s = this.states.get(segment);
    if (s !== undefined && s.next <= s.end) {
      const key = s.next++;
      if (key >= s.prefetchMark) this.prefetch(s);
      return (this.bigint ? BigInt(key) : key) as K;
    }
    return this.takeSlow(segment);
  }

  next(segment: string): Promise<K> {
    const s = this.states.get(segment);
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
    const s = this.state(segment);
    const key = this.take(s);
    if (key === undefined && s.inflight === undefined) void this.refill(s).catch(() => undefined);
    return key;
  }

  private async nextSlow(segment: string): Promise<K> {
    const s = this.state(segment);
    s.demand += 1;
    try {
      for (;;) {
        if (this.closed) throw new HiLoClosedError();
        const key = this.take(s);
        if (key !== undefined) return key;
        await this.refill(s);
      }
    } finally {
      s.demand -= 1;
    }
  }

  async reserve(segment: string, count: number): Promise<K[]> {
    checkInteger('count', count, { min: 0, max: MAX_COUNT });
    const s = this.state(segment);
    const keys: K[] = [];
    let wanted = count;
    s.demand += wanted;
    try {
      while (keys.length < count) {
        if (this.closed) throw new HiLoClosedError();
        const before = keys.length;
        this.takeMany(s, count - keys.length, keys);
        s.demand -= keys.length - before;
        wanted -= keys.length - before;
        if (keys.length < count) await this.refill(s);
      }
      return keys;
    } finally {
      s.demand -= wanted;
    }
  }

  async ensure(segment: string, count: number): Promise<void> {
    checkInteger('count', count, { min: 0, max: MAX_COUNT });
    const s = this.state(segment);
    for (;;) {
      if (this.closed) throw new HiLoClosedError();
      const short = count - this.available(s);
      if (short <= 0) return;
      // counted as waiting demand, so that the next reservation covers the whole shortfall
      s.demand += count;
      try {
        await this.refill(s);
      } finally {
        s.demand -= count;
      }
    }
  }

  async nextFullId(segment: string): Promise<string> {
    const key = await this.next(segment);
    const tag = this.o.nodeTag === undefined ? '' : `-${this.o.nodeTag}`;
    return `${this.o.prefix(segment)}${this.o.separator}${String(key)}${tag}`;
  }

  async warm(segments: readonly string[]): Promise<void> {
    if (this.closed) throw new HiLoClosedError();
    await Promise.all(
      segments.map(async (segment) => {
        const s = this.state(segment);
        if (this.available(s) > 0) return;
        try {
          await this.refill(s, { attempts: 1 });
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          if (error instanceof HiLoError && !error.retryable) throw error;
          throw new HiLoSourceUnavailableError(
            `Could not reserve keys for segment "${segment}" at start-up from ${this.o.source.description}: ${reason} Check that the database is running and reachable.`,
            { cause: error },
          );
        }
      }),
    );
  }

  // ---- blocks -----------------------------------------------------------------------------------------

  private state(segment: string): SegmentState {
    let s = this.states.get(segment);
    if (s === undefined) {
      validateSegment(segment);
      const so = this.o.segments[segment];
      const blockSize = so?.blockSize ?? this.o.blockSize;
      s = {
        name: segment,
        next: 1,
        end: 0,
        first: 1,
        prefetchMark: Infinity,
        bigNext: 1n,
        bigEnd: 0n,
        queue: [],
        inflight: undefined,
        inflightAbort: undefined,
        prepared: undefined,
        demand: 0,
        blockSize,
        minBlockSize: blockSize,
        maxBlockSize: so?.maxBlockSize ?? Math.max(blockSize, this.o.maxBlockSize),
        lastReservationAt: 0,
        issuedAtLastReservation: 0,
        issuedBefore: 0,
        overflow: undefined,
        maxKey: so?.maxKey ?? this.o.maxKey,
        highestKey: 0n,
        headroomWarned: false,
        stats: {
          keysReserved: 0,
          keysReturned: 0,
          keysLost: 0,
          reservations: 0,
          blocksReserved: 0,
          failedAttempts: 0,
          lastReservationMs: 0,
          totalReservationMs: 0,
          maxReservationMs: 0,
        },
      };
      this.states.set(segment, s);
    }
    return s;
  }

  private issued(s: SegmentState): number {
    return s.issuedBefore + (s.next - s.first);
  }

  private available(s: SegmentState): number {
    let n = Math.max(0, s.end - s.next + 1) + Number(s.bigEnd >= s.bigNext ? s.bigEnd - s.bigNext + 1n : 0n);
    for (const b of s.queue) n += Number(b.last - b.first + 1n);
    return n;
  }

  /** One key from the current block, the big block or the queue, or undefined. */
  private take(s: SegmentState): K | undefined {
    for (;;) {
      if (s.next <= s.end) {
        const key = s.next++;
        if (key >= s.prefetchMark) this.prefetch(s);
        return (this.bigint ? BigInt(key) : key) as K;
      }
      if (s.bigNext <= s.bigEnd) {
        const key = s.bigNext++;
        s.issuedBefore++;
        if (s.bigNext > s.bigEnd && s.queue.length === 0) this.prefetch(s);
        return key as K;
      }
      if (!this.advance(s)) return undefined;
    }
  }

  /** Up to `n` keys into `out`. */
  private takeMany(s: SegmentState, n: number, out: K[]): void {
    let left = n;
    while (left > 0) {
      if (s.next <= s.end) {
        const stop = Math.min(s.end, s.next + left - 1);
        for (let k = s.next; k <= stop; k++) out.push((this.bigint ? BigInt(k) : k) as K);
        left -= stop - s.next + 1;
        s.next = stop + 1;
        if (stop >= s.prefetchMark) this.prefetch(s);
        continue;
      }
      if (s.bigNext <= s.bigEnd) {
        out.push(s.bigNext as K);
        s.bigNext++;
        s.issuedBefore++;
        left--;
        continue;
      }
      if (!this.advance(s)) return;
    }
  }

  /** Makes the next queued block current. */
  private advance(s: SegmentState): boolean {
    if (s.overflow && s.queue.length === 0) throw s.overflow;
    const block = s.queue.shift();
    if (block === undefined) return false;
    s.issuedBefore += s.next - s.first;
    if (block.last <= SAFE) {
      s.first = Number(block.first);
      s.next = s.first;
      s.end = Number(block.last);
      s.bigNext = 1n;
      s.bigEnd = 0n;
      const size = s.end - s.first + 1;
      s.prefetchMark =
        this.o.prefetchAt === undefined || s.queue.length > 0 ? Infinity : s.first + Math.max(0, Math.ceil(size * this.o.prefetchAt) - 1);
    } else {
      // only reachable with bigint keys: blocks past MAX_SAFE_INTEGER are cut or refused in accept()
      s.first = 1;
      s.next = 1;
      s.end = 0;
      s.bigNext = block.first;
      s.bigEnd = block.last;
      s.prefetchMark = Infinity;
    }
    return true;
  }

  private prefetch(s: SegmentState): void {
    s.prefetchMark = Infinity;
    if (this.closed || s.inflight !== undefined || s.queue.length > 0) return;
    // Started on the next turn of the event loop, not inside the call that crossed the mark: starting a
    // reservation (a driver building and sending a query) would otherwise land on that caller's latency.
    setImmediate(() => {
      if (this.closed || s.inflight !== undefined || s.queue.length > 0) return;
      void this.refill(s).catch(() => undefined);
    });
  }

  /** Single flight: the reservation in flight for `s`, or a new one. */
  private refill(s: SegmentState, opts?: { attempts: number }): Promise<void> {
    if (this.closed) return Promise.reject(new HiLoClosedError());
    if (s.overflow) return Promise.reject(s.overflow);
    if (s.inflight) return s.inflight;
    const controller = new AbortController();
    s.inflightAbort = controller;
    const flight = this.reserveWithRetry(s, controller.signal, opts?.attempts ?? this.o.retries + 1).finally(() => {
      s.inflight = undefined;
      s.inflightAbort = undefined;
    });
    s.inflight = flight;
    return flight;
  }

  private nextSize(s: SegmentState, now: number): number {
    let size = s.blockSize;
    const target = this.o.adaptiveTargetMs;
    if (target !== undefined && s.lastReservationAt > 0) {
      const elapsed = Math.max(1, now - s.lastReservationAt);
      const used = this.issued(s) - s.issuedAtLastReservation;
      const ideal = (used / elapsed) * target;
      let wanted = s.blockSize;
      if (ideal > s.blockSize) wanted = Math.min(s.blockSize * 8, ideal);
      else if (ideal < s.blockSize / 2) wanted = Math.max(s.blockSize / 2, ideal);
      wanted = Math.min(s.maxBlockSize, Math.max(s.minBlockSize, Math.round(wanted)));
      if (wanted !== s.blockSize) {
        this.emit({ type: 'resized', segment: s.name, from: s.blockSize, to: wanted });
        s.blockSize = wanted;
      }
      size = wanted;
    }
    // callers already waiting (bulk reserve, a burst of next()) get their keys in this round trip
    const waiting = s.demand - this.available(s);
    if (waiting > size) size = Math.min(s.maxBlockSize, waiting);
    return size;
  }

  private async reserveWithRetry(s: SegmentState, signal: AbortSignal, attempts: number): Promise<void> {
    let lastError: unknown;
    const started = performance.now();
    const deadline = started + this.o.retryBudgetMs;
    let attempt = 0;
    let cutShort = false;
    while (attempt < attempts) {
      attempt++;
      if (signal.aborted) throw new HiLoClosedError();
      try {
        await this.reserveOnce(s, signal);
        return;
      } catch (error) {
        lastError = error;
        s.stats.failedAttempts++;
        if (this.closed) throw new HiLoClosedError();
        const retryable = error instanceof HiLoError ? error.retryable : false;
        if (!retryable) {
          this.emit({ type: 'failed', segment: s.name, error });
          throw error;
        }
        if (attempt >= attempts) break;
        const ceiling = Math.min(this.o.retryMaxDelayMs, this.o.retryBaseDelayMs * 2 ** Math.min(attempt - 1, 30));
        const delayMs = Math.floor(Math.random() * (ceiling + 1));
        // the budget bounds when the last attempt may start: never sleep past it (nor past what the error says is worth it)
        const within = error instanceof HiLoError && error.retryWithinMs !== undefined ? started + error.retryWithinMs : deadline;
        if (performance.now() + delayMs >= Math.min(deadline, within)) {
          cutShort = within < deadline;
          break;
        }
        this.emit({ type: 'retry', segment: s.name, attempt, delayMs, error });
        await sleep(delayMs, signal);
      }
    }
    this.emit({ type: 'failed', segment: s.name, error: lastError });
    if (attempts === 1) throw lastError;
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    const elapsed = Math.round(performance.now() - started);
    const limit =
      attempt >= attempts
        ? `the limit set by \`retries\` (${attempts - 1}): ${reason} Raise \`retries\` to try longer.`
        : cutShort
          ? `as long as retrying this error can help: ${reason}`
          : `the limit set by \`retryBudgetMs\` (${this.o.retryBudgetMs} ms): ${reason} Raise \`retryBudgetMs\` to wait longer for the database.`;
    throw new HiLoExhaustedError(
      `Could not reserve keys for segment "${s.name}" from ${this.o.source.description} after ${attempt} attempts in ${elapsed} ms, ${limit}`,
      { cause: lastError },
    );
  }

  private async reserveOnce(s: SegmentState, closeSignal: AbortSignal): Promise<void> {
    const started = performance.now();
    const attempt = new AbortController();
    const onClose = () => attempt.abort(closeSignal.reason);
    closeSignal.addEventListener('abort', onClose, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new HiLoTimeoutError(
          `Reserving keys for segment "${s.name}" from ${this.o.source.description} took longer than ${this.o.timeoutMs} ms; the attempt was abandoned and any block it gets is discarded.`,
        );
        attempt.abort(error);
        reject(error);
      }, this.o.timeoutMs);
    });
    let settled = false;
    try {
      const work = (async () => {
        if (s.prepared === undefined) {
          const source = this.o.source;
          s.prepared = source.prepare ? source.prepare(s.name, attempt.signal) : Promise.resolve();
          s.prepared.catch(() => (s.prepared = undefined));
        }
        await s.prepared;
        const size = this.nextSize(s, Date.now());
        return await this.o.source.reserve(s.name, { size, signal: attempt.signal });
      })();
      // a block granted after we gave up is never used: count it as lost
      work.then(
        (blocks) => {
          if (settled) this.lose(s, blocks, 'late-reservation');
        },
        () => undefined,
      );
      const blocks = await Promise.race([work, timedOut]);
      settled = true;
      if (this.closed) {
        this.lose(s, blocks, 'close');
        throw new HiLoClosedError();
      }
      this.accept(s, blocks, performance.now() - started);
    } catch (error) {
      settled = true;
      throw this.normalize(error);
    } finally {
      clearTimeout(timer);
      closeSignal.removeEventListener('abort', onClose);
    }
  }

  private normalize(error: unknown): unknown {
    if (error instanceof HiLoError) return error;
    // a source that throws plain errors: treat as unknown outcome, worth a retry
    return new HiLoSourceError(`Hi source ${this.o.source.description} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      retryable: true,
    });
  }

  private lose(s: SegmentState, blocks: readonly Block[], reason: 'late-reservation' | 'close' | 'overflow'): void {
    let keys = 0;
    for (const b of blocks) keys += Number(b.last - b.first + 1n);
    s.stats.keysLost += keys;
    this.emit({ type: 'lost', segment: s.name, keys, reason });
  }

  private accept(s: SegmentState, blocks: readonly Block[], ms: number): void {
    if (blocks.length === 0) {
      throw new HiLoSourceError(`Hi source ${this.o.source.description} returned no block for segment "${s.name}".`);
    }
    const last = s.queue.at(-1)?.last ?? (s.bigEnd >= s.bigNext ? s.bigEnd : BigInt(s.end));
    let previous = last;
    let keys = 0;
    for (const b of blocks) {
      if (typeof b.first !== 'bigint' || typeof b.last !== 'bigint' || b.last < b.first) {
        throw new HiLoSourceError(`Hi source ${this.o.source.description} returned an invalid block for "${s.name}": [${String(b.first)}, ${String(b.last)}].`);
      }
      if (b.first <= previous && previous >= 1n) {
        // keys must only grow; a source that goes back (a sequence restarted below what we handed out) would duplicate
        throw new HiLoSourceError(
          `Hi source ${this.o.source.description} returned block [${b.first}, ${b.last}] for segment "${s.name}", not above key ${previous} already handed out. Something moved the sequence or table row backwards; raise it with \`hilo floor\` before continuing.`,
        );
      }
      previous = b.last;
    }
    s.stats.reservations++;
    s.stats.lastReservationMs = ms;
    s.stats.totalReservationMs += ms;
    if (ms > s.stats.maxReservationMs) s.stats.maxReservationMs = ms;
    s.lastReservationAt = Date.now();
    s.issuedAtLastReservation = this.issued(s);
    for (const b of blocks) {
      const size = Number(b.last - b.first + 1n);
      keys += size;
      s.stats.blocksReserved++;
      s.stats.keysReserved += size;
      if (!this.bigint && b.last > SAFE) {
        const error = new HiLoOverflowError(
          `Segment "${s.name}" reached key ${b.first > SAFE ? b.first : SAFE + 1n}, above Number.MAX_SAFE_INTEGER (${Number.MAX_SAFE_INTEGER}). Use keyType: "bigint" to go on.`,
        );
        if (b.first <= SAFE) s.queue.push({ first: b.first, last: SAFE });
        this.lose(s, [{ first: b.first > SAFE ? b.first : SAFE + 1n, last: b.last }], 'overflow');
        s.overflow = error;
        break;
      }
      s.queue.push(b);
    }
    this.emit({ type: 'reserved', segment: s.name, blocks, keys, durationMs: ms });
    const highest = blocks[blocks.length - 1]!.last;
    if (highest > s.highestKey) {
      s.highestKey = highest;
      if (!s.headroomWarned && highest * 10n >= s.maxKey * 9n) this.warnHeadroom(s);
    }
    // the block in hand is empty: make the new one current so the fast path serves it
    if (s.next > s.end && s.bigNext > s.bigEnd) this.advance(s);
  }

  private warnHeadroom(s: SegmentState): void {
    s.headroomWarned = true;
    const used = keyspaceUsed(s);
    this.emit({ type: 'headroom', segment: s.name, highestKey: s.highestKey, maxKey: s.maxKey, used });
    process.emitWarning(
      `hilo: segment "${s.name}" has reserved keys up to ${s.highestKey}, ${(used * 100).toFixed(1)} % of its maxKey ${s.maxKey}. ` +
        `Widen the key column (e.g. int → bigint) and raise \`maxKey\` before inserts start to fail.`,
      { code: 'HILO_HEADROOM' },
    );
  }

  private emit(event: HiLoEvent): void {
    this.o.onEvent?.(event);
  }

  // ---- reporting and shutdown ---------------------------------------------------------------------------

  stats(): Record<string, SegmentStats> {
    const out: Record<string, SegmentStats> = {};
    for (const s of this.states.values()) {
      const st = s.stats;
      out[s.name] = {
        keysIssued: this.issued(s),
        keysAvailable: this.available(s),
        keysReserved: st.keysReserved,
        keysReturned: st.keysReturned,
        keysLost: st.keysLost,
        reservations: st.reservations,
        blocksReserved: st.blocksReserved,
        failedAttempts: st.failedAttempts,
        blockSize: s.blockSize,
        keyspaceUsed: keyspaceUsed(s),
        lastReservationMs: st.lastReservationMs,
        meanReservationMs: st.reservations === 0 ? 0 : st.totalReservationMs / st.reservations,
        maxReservationMs: st.maxReservationMs,
      };
    }
    return out;
  }

  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true;
    // bounded: on a stalled connection, stop waiting and leave gaps (never duplicates: nothing is handed out after close)
    const deadline = performance.now() + this.o.closeTimeoutMs;
    const pending: Promise<unknown>[] = [];
    for (const s of this.states.values()) {
      s.inflightAbort?.abort(new HiLoClosedError());
      if (s.inflight) pending.push(s.inflight.catch(() => undefined));
    }
    await beforeDeadline(Promise.all(pending), deadline);
    const source = this.o.source;
    for (const s of this.states.values()) {
      // unused ranges: the current block's tail, then queued blocks (ascending)
      const unused: Block[] = [];
      if (s.next <= s.end) unused.push({ first: BigInt(s.next), last: BigInt(s.end) });
      if (s.bigNext <= s.bigEnd) unused.push({ first: s.bigNext, last: s.bigEnd });
      unused.push(...s.queue);
      s.issuedBefore += s.next - s.first;
      s.first = s.next = 1;
      s.end = 0;
      s.bigNext = 1n;
      s.bigEnd = 0n;
      s.queue.length = 0;
      if (unused.length === 0) continue;
      const latest = unused[unused.length - 1]!;
      let returned = 0;
      if (source.release && s.overflow === undefined) {
        try {
          if ((await beforeDeadline(source.release(s.name, latest), deadline)) === true) returned = Number(latest.last - latest.first + 1n);
        } catch {
          // a failed return leaves a gap, never a duplicate
        }
      }
      let total = 0;
      for (const b of unused) total += Number(b.last - b.first + 1n);
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
  }
}

/** Fraction of `maxKey` reached by the highest key reserved. */
function keyspaceUsed(s: SegmentState): number {
  return Number(s.highestKey) / Number(s.maxKey);
}

/** Resolves with `work`'s value, or with `undefined` once `deadline` (a `performance.now()` time) has passed. */
function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  work.catch(() => undefined);
  const left = deadline - performance.now();
  if (left <= 0) return Promise.race([work, Promise.resolve(undefined)]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), left);
    timer.unref?.();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
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
export function createHiLoGenerator(options: HiLoGeneratorOptions<'number'> & { keyType?: 'number' }): HiLoGenerator<number>;
export function createHiLoGenerator(options: HiLoGeneratorOptions<'bigint'> & { keyType: 'bigint' }): HiLoGenerator<bigint>;
export function createHiLoGenerator<T extends KeyType>(options: HiLoGeneratorOptions<T>): HiLoGenerator<KeyOf<T>>;
export function createHiLoGenerator(options: HiLoGeneratorOptions<KeyType>): HiLoGenerator<number | bigint> {
  return new Generator<number | bigint>(resolveOptions(options));
}
