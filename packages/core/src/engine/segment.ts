import type { HiLoError } from '../errors.js';
import type { BlockSizing } from './block-sizing.js';
import type { HiLoEvent, LostReason, SegmentStats } from './events.js';
import { nextSegmentState, type SegmentEvent, type SegmentState } from './lifecycle.js';
import { DEFAULT_PREFETCH_AT, type ResolvedOptions } from './options.js';
import type { ReservingSegment } from './reservation.js';
import { keysIn, SegmentBlocks } from './segment-blocks.js';
import type { ServerView } from './server-watch.js';
import type { Block } from './types.js';

/**
 * One segment of a generator: its block state (the hot path's fields, in {@link SegmentBlocks}), its place in the
 * lifecycle ({@link SegmentState}, changed only by {@link Segment.transition}), and what reservation, sizing and reporting
 * keep. Reservations and checks reach it through the narrow {@link ReservingSegment}; the generator drives the rest.
 */
export class Segment extends SegmentBlocks implements ReservingSegment {
  /** Where the segment is in its life; changed only by {@link transition}, as `SEGMENT_TRANSITIONS` says. */
  state: SegmentState = 'unverified';
  /**
   * While `unverified` after a failover: the highest key reserved on the servers hilo left. Keys only grow in a
   * process, so a block at or below it is discarded and the store raised above it.
   */
  floor: bigint | undefined;
  /** While `parked`: the keys taken out of hand until the server is confirmed, ascending. */
  private readonly parkedBlocks: Block[] = [];
  /** Once `refused`: what every later call rejects with. */
  refusal: HiLoError | undefined;
  inflight: Promise<void> | undefined;
  inflightAbort: AbortController | undefined;
  prepared: Promise<void> | undefined;
  /** The check of the keys in hand an awaited draw runs before it reaches a queued block, shared by its callers. */
  rechecking: Promise<void> | undefined;
  /** Keys callers are waiting for right now (bulk requests and awaited next()). */
  demand = 0;
  /** Whether reaching 90 % of `maxKey` (the largest key the column holds) with `highestKey` was reported. */
  private headroomWarned = false;
  readonly stats = {
    keysReserved: 0,
    keysReturned: 0,
    keysLost: 0,
    reservations: 0,
    blocksReserved: 0,
    failedAttempts: 0,
    lastReservationMs: 0,
    totalReservationMs: 0,
    maxReservationMs: 0,
  };
  /** Starts the background reservation; bound once, called by the block state when the prefetch mark is crossed. */
  readonly low: () => void;

  /**
   * @param onLow starts a background reservation of this segment (the prefetch mark was crossed)
   * @param onBlocks the segment accepted blocks (the peer check starts)
   */
  constructor(
    name: string,
    private readonly options: ResolvedOptions,
    readonly sizing: BlockSizing,
    readonly maxKey: bigint,
    private readonly server: ServerView,
    onLow: (segment: Segment) => void,
    private readonly onBlocks: () => void,
  ) {
    super(name, options.prefetchAt);
    this.low = () => onLow(this);
  }

  /**
   * `prefetchAt: 0` keeps a standby block for callers that cannot wait, except beside a block of the start-up ramp:
   * that one is sized for a process that writes a few rows (DESIGN rule 12), and a standby beside it would cost each
   * such process a second block (a whole sequence increment), so it prefetches at the default fraction. (The block
   * becoming current is the last one asked for: a prefetch starts only once no block is queued.)
   */
  protected override prefetchFraction(): number | undefined {
    const at = this.prefetchAt;
    return at === 0 && this.sizing.rampBlock ? DEFAULT_PREFETCH_AT : at;
  }

  /**
   * The one place the state changes: the table names the next state, and this does what the change means for the
   * keys. Into `parked`: the keys in hand are set aside. `parked` to `serving`: they are handed out again. A failover:
   * every key is dropped (lost) and the floor is every key reserved before. `refused`: every key is dropped (lost).
   * `closed`: every key is dropped and returned for the generator to give back. `accept` ends the floor.
   */
  transition(event: SegmentEvent, lostAs: Extract<LostReason, 'failover' | 'restart'> = 'failover'): Block[] {
    const from = this.state;
    const to = nextSegmentState(from, event);
    this.state = to;
    if (event === 'accept') this.floor = undefined;
    if (to === 'parked') {
      this.parkedBlocks.push(...this.drain());
    } else if (from === 'parked' && to === 'serving') {
      this.queue.push(...this.dropAll());
      this.advanceIfEmpty();
    } else if (event === 'failover' && to === 'unverified') {
      const lost = this.dropAll();
      if (lost.length > 0) this.lose(lost, lostAs);
      if (this.highestKey > 0n && (this.floor === undefined || this.highestKey > this.floor))
        this.floor = this.highestKey;
      return lost;
    } else if (to === 'refused') {
      const unused = this.dropAll();
      if (unused.length > 0) this.lose(unused, 'mismatch');
    } else if (to === 'closed') {
      return this.dropAll();
    }
    return [];
  }

  /** Removes and returns every key not handed out, parked ones first (they are the lower ones), ascending. */
  private dropAll(): Block[] {
    return [...this.parkedBlocks.splice(0), ...this.drain()];
  }

  /** The block size the next reservation asks for, decided just before the source is called. */
  size(): number {
    return this.sizing.next(Date.now(), this.issued(), this.demand - this.available(), (from, to) =>
      this.emit({ type: 'resized', segment: this.name, from, to }),
    );
  }

  /**
   * Keeps the blocks of a successful reservation and reports them (`accept`); while the server is unconfirmed they
   * are parked with the rest (`park`), so the check decides for all of them. Throws the refusal (and keeps nothing)
   * when the segment was refused while the reservation ran.
   */
  accept(blocks: readonly Block[], ms: number): void {
    if (this.refusal !== undefined) {
      // refused between reservations (the peer check) while this one ran: none of its keys is handed out
      this.lose(blocks, 'mismatch');
      throw this.refusal;
    }
    const before = this.highestKey;
    const o = this.options;
    const refused = this.enqueue(blocks, o.keyType === 'bigint', o.source.description, this.maxKey);
    const st = this.stats;
    st.reservations++;
    st.lastReservationMs = ms;
    st.totalReservationMs += ms;
    if (ms > st.maxReservationMs) st.maxReservationMs = ms;
    this.sizing.reserved(Date.now(), this.issued());
    const keys = keysIn(blocks);
    st.blocksReserved += blocks.length;
    st.keysReserved += keys;
    if (refused.length > 0) this.lose(refused, 'overflow');
    this.emit({ type: 'reserved', segment: this.name, blocks, keys, durationMs: ms });
    if (this.highestKey > before && !this.headroomWarned && this.highestKey * 10n >= this.maxKey * 9n) {
      this.warnHeadroom();
    }
    this.transition('accept');
    if (this.server.unconfirmed) this.transition('park');
    else this.advanceIfEmpty();
    this.onBlocks();
  }

  /** Removes and returns every key in hand never handed out (a table found since holds one of them). */
  dropUnissued(): Block[] {
    return this.drain();
  }

  /** Counts and reports keys that will never be handed out. */
  lose(blocks: readonly Block[], reason: LostReason): void {
    const keys = keysIn(blocks);
    this.stats.keysLost += keys;
    this.emit({ type: 'lost', segment: this.name, keys, reason });
  }

  /** Counts and reports `keys` keys already handed out that will never be stored (`discard()`). */
  loseIssued(keys: number, reason: LostReason): void {
    if (keys <= 0) return;
    this.stats.keysLost += keys;
    this.emit({ type: 'lost', segment: this.name, keys, reason });
  }

  /** Refuses the segment for good (a peer reads the shared store differently): its keys in hand are never handed out. */
  refuse(error: HiLoError): void {
    // the first refusal stands (a reservation's probe and the peer check may both find the peer)
    this.refusal ??= error;
    this.transition('refuse');
  }

  emit(event: HiLoEvent): void {
    this.options.onEvent?.(event);
  }

  private warnHeadroom(): void {
    this.headroomWarned = true;
    const used = this.keyspaceUsed();
    this.emit({ type: 'headroom', segment: this.name, highestKey: this.highestKey, maxKey: this.maxKey, used });
    process.emitWarning(
      `hilo: segment "${this.name}" has reserved keys up to ${this.highestKey}, ${(used * 100).toFixed(1)} % of its ` +
        `maxKey ${this.maxKey}. Widen the key column (e.g. int → bigint) and raise \`maxKey\` before inserts start to fail.`,
      { code: 'HILO_HEADROOM' },
    );
  }

  /** Fraction of `maxKey` reached by the highest key reserved. */
  private keyspaceUsed(): number {
    return Number(this.highestKey) / Number(this.maxKey);
  }

  /** What `generator.stats()` reports for this segment. */
  snapshot(): SegmentStats {
    const st = this.stats;
    return {
      state: this.state,
      keysIssued: this.issued(),
      keysAvailable: this.available(),
      keysReserved: st.keysReserved,
      keysReturned: st.keysReturned,
      keysLost: st.keysLost,
      reservations: st.reservations,
      blocksReserved: st.blocksReserved,
      failedAttempts: st.failedAttempts,
      blockSize: this.sizing.blockSize,
      keyspaceUsed: this.keyspaceUsed(),
      lastReservationMs: st.lastReservationMs,
      meanReservationMs: st.reservations === 0 ? 0 : st.totalReservationMs / st.reservations,
      maxReservationMs: st.maxReservationMs,
    };
  }
}
