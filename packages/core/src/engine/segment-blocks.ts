import { HiLoKeyLimitError, HiLoOverflowError } from '../errors.js';
import type { Block } from './types.js';
import { overflowErrors, sourceErrors } from '../error-messages.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The most used-up blocks kept for the peer check between two of its rounds (rounds that keep failing, a database
 * that is down): the newest are kept, older ones are no longer probed.
 */
const MAX_RETIRED = 256;

/**
 * The synchronous block state of one segment: the block keys are handed out from, the blocks queued after it,
 * and the counts needed to report them. Nothing here waits or talks to a database; the generator's hot path
 * reads `next`, `end` and `prefetchMark` directly.
 */
export class SegmentBlocks {
  /** Next key of the current block and its last key, as numbers (fast path). `next > end` when empty. */
  next = 1;
  end = 0;
  /** First key of the current block, to count issued keys without touching the hot path. */
  first = 1;
  /** Handing out this key (or a later one) starts the background reservation. */
  prefetchMark = Number.POSITIVE_INFINITY;
  /** Current block beyond Number.MAX_SAFE_INTEGER (bigint keys only). */
  bigNext = 1n;
  bigEnd = 0n;
  /** Blocks in hand after the current one, ascending. */
  readonly queue: Block[] = [];
  /** Keys issued from blocks no longer current. */
  issuedBefore = 0;
  /**
   * Blocks that stopped being current since the peer check last probed them (oldest first), kept only while
   * something probes them (a store shared with a peer and its peer check): the check counts their stored keys, so a
   * peer's keys in a block hilo used up are found too. Undefined: not kept. Never touched by the fast path.
   */
  retired: Block[] | undefined;
  /**
   * Used-up blocks a round of the peer check already probed (oldest first, at most {@link MAX_RETIRED}, the newest),
   * kept for the last check at `close()`: a peer may write into a block after the round that probed it (Hibernate
   * holding an old hi value), and a run must not end with such keys unreported. Undefined: not kept.
   */
  probed: Block[] | undefined;
  /**
   * Set once a block crossed Number.MAX_SAFE_INTEGER with number keys, or the segment's `maxKey`: thrown when
   * the queue runs dry.
   */
  overflow: HiLoOverflowError | HiLoKeyLimitError | undefined;

  /**
   * @param name the segment's name, for messages
   * @param prefetchAt fraction of a block after which the next reservation starts (0: at its first key; undefined: no
   *   prefetch)
   */
  constructor(
    readonly name: string,
    protected readonly prefetchAt: number | undefined,
  ) {}

  /** Keys handed out so far. */
  issued(): number {
    return this.issuedBefore + (this.next - this.first);
  }

  /** Keys left in the current block (the number block or the big one), not counting the queued blocks. */
  currentRest(): number {
    return (
      Math.max(0, this.end - this.next + 1) + Number(this.bigEnd >= this.bigNext ? this.bigEnd - this.bigNext + 1n : 0n)
    );
  }

  /** Keys in memory: the rest of the current block and every queued block. */
  available(): number {
    let n =
      Math.max(0, this.end - this.next + 1) +
      Number(this.bigEnd >= this.bigNext ? this.bigEnd - this.bigNext + 1n : 0n);
    for (const b of this.queue) n += Number(b.last - b.first + 1n);
    return n;
  }

  /**
   * The highest key reserved (of every block accepted), 0 before the first; never reset: a block must lie above
   * it (keys only grow in a process), also after the blocks in hand were dropped (a failover, parked keys).
   */
  highestKey = 0n;

  /** One key from the current block, the big block or the queue, or undefined; calls `low` when it is time to prefetch. */
  take(bigint: boolean, low: () => void): number | bigint | undefined {
    for (;;) {
      if (this.next <= this.end) {
        const key = this.next++;
        if (key >= this.prefetchMark) low();
        return bigint ? BigInt(key) : key;
      }
      if (this.bigNext <= this.bigEnd) {
        const key = this.bigNext++;
        this.issuedBefore++;
        if (this.bigNext > this.bigEnd && this.queue.length === 0) low();
        return key;
      }
      if (!this.advance()) return undefined;
    }
  }

  /** Up to `n` keys into `out`, ascending; calls `low` when it is time to prefetch. */
  takeMany(n: number, out: (number | bigint)[], bigint: boolean, low: () => void): void {
    let left = n;
    while (left > 0) {
      if (this.next <= this.end) {
        const stop = Math.min(this.end, this.next + left - 1);
        for (let k = this.next; k <= stop; k++) out.push(bigint ? BigInt(k) : k);
        left -= stop - this.next + 1;
        this.next = stop + 1;
        if (stop >= this.prefetchMark) low();
        continue;
      }
      if (this.bigNext <= this.bigEnd) {
        out.push(this.bigNext);
        this.bigNext++;
        this.issuedBefore++;
        left--;
        continue;
      }
      if (!this.advance()) return;
    }
  }

  /** The fraction of the block becoming current after which the next one is reserved (undefined: no prefetch). */
  protected prefetchFraction(): number | undefined {
    return this.prefetchAt;
  }

  /** Makes the next queued block current; false when none is queued. Throws the overflow once the queue is dry. */
  advance(): boolean {
    if (this.overflow && this.queue.length === 0) throw this.overflow;
    const block = this.queue.shift();
    if (block === undefined) return false;
    this.retire();
    this.issuedBefore += this.next - this.first;
    if (block.last <= SAFE) {
      this.first = Number(block.first);
      this.next = this.first;
      this.end = Number(block.last);
      this.bigNext = 1n;
      this.bigEnd = 0n;
      const size = this.end - this.first + 1;
      const at = this.prefetchFraction();
      this.prefetchMark =
        at === undefined || this.queue.length > 0
          ? Number.POSITIVE_INFINITY
          : this.first + Math.max(0, Math.ceil(size * at) - 1);
    } else {
      // only reachable with bigint keys: blocks past MAX_SAFE_INTEGER are cut or refused in enqueue()
      this.first = 1;
      this.next = 1;
      this.end = 0;
      this.bigNext = block.first;
      this.bigEnd = block.last;
      this.prefetchMark = Number.POSITIVE_INFINITY;
    }
    return true;
  }

  /**
   * Checks that `blocks` are well formed and above every key reserved before (keys only grow: a source that went back
   * would hand out duplicates), then queues them. A block crossing `maxKey` (the largest key the column holds)
   * or, with number keys, Number.MAX_SAFE_INTEGER is cut there and the rest refused (that block's part above it
   * and every later block): the ranges refused are returned, and `overflow` is set. Throws `HiLoSourceError`
   * (and queues nothing) when a block is invalid or not above the keys in hand.
   */
  enqueue(blocks: readonly Block[], bigint: boolean, source: string, maxKey?: bigint): Block[] {
    if (blocks.length === 0) {
      throw sourceErrors.noBlock(source, this.name);
    }
    let previous = this.highestKey;
    for (const b of blocks) {
      if (typeof b.first !== 'bigint' || typeof b.last !== 'bigint' || b.last < b.first) {
        throw sourceErrors.invalidBlock(source, this.name, b.first, b.last);
      }
      if (b.first <= previous && previous >= 1n) {
        throw sourceErrors.notAboveReserved(source, this.name, b, previous);
      }
      previous = b.last;
    }
    this.highestKey = previous;
    const refused: Block[] = [];
    const byKeyType = !bigint && (maxKey === undefined || maxKey >= SAFE);
    const limit = byKeyType ? SAFE : (maxKey ?? SAFE);
    for (const [i, b] of blocks.entries()) {
      if ((!bigint || maxKey !== undefined) && b.last > limit) {
        const firstRefused = b.first > limit ? b.first : limit + 1n;
        this.overflow = byKeyType
          ? overflowErrors.aboveSafeInteger(this.name, firstRefused)
          : new HiLoKeyLimitError(this.name, limit, firstRefused);
        if (b.first <= limit) this.queue.push({ first: b.first, last: limit });
        refused.push({ first: firstRefused, last: b.last }, ...blocks.slice(i + 1));
        break;
      }
      this.queue.push(b);
    }
    return refused;
  }

  /** Makes the first queued block current when the block in hand is empty, so the fast path serves it. */
  advanceIfEmpty(): void {
    if (this.next > this.end && this.bigNext > this.bigEnd) this.advance();
  }

  /**
   * The blocks in hand with how many keys of each were handed out: the current block whole (also when used up),
   * then the queued ones. A block past Number.MAX_SAFE_INTEGER shows only its unused part.
   */
  held(): { block: Block; handedOut: bigint }[] {
    const held: { block: Block; handedOut: bigint }[] = [];
    if (this.end >= this.first) {
      held.push({
        block: { first: BigInt(this.first), last: BigInt(this.end) },
        handedOut: BigInt(this.next - this.first),
      });
    }
    if (this.bigNext <= this.bigEnd) held.push({ block: { first: this.bigNext, last: this.bigEnd }, handedOut: 0n });
    for (const block of this.queue) held.push({ block, handedOut: 0n });
    return held;
  }

  /** Every unused range (current block's tail, then queued blocks, ascending), left in place. */
  unissued(): Block[] {
    const unused: Block[] = [];
    if (this.next <= this.end) unused.push({ first: BigInt(this.next), last: BigInt(this.end) });
    if (this.bigNext <= this.bigEnd) unused.push({ first: this.bigNext, last: this.bigEnd });
    unused.push(...this.queue);
    return unused;
  }

  /** Keeps `blocks`, which a round of the peer check probed, in {@link probed} for the last check (the newest). */
  keepProbed(blocks: readonly Block[]): void {
    const probed = this.probed;
    if (probed === undefined || blocks.length === 0) return;
    probed.push(...blocks);
    if (probed.length > MAX_RETIRED) probed.splice(0, probed.length - MAX_RETIRED);
  }

  /** Keeps the current block (number keys) in {@link retired} when kept, at most {@link MAX_RETIRED} (the newest). */
  private retire(): void {
    const retired = this.retired;
    if (retired === undefined || this.end < this.first || this.next === this.first) return;
    retired.push({ first: BigInt(this.first), last: BigInt(this.end) });
    if (retired.length > MAX_RETIRED) retired.splice(0, retired.length - MAX_RETIRED);
  }

  /** Removes and returns every unused range (current block's tail, then queued blocks, ascending). */
  drain(): Block[] {
    const unused = this.unissued();
    this.retire();
    this.issuedBefore += this.next - this.first;
    this.first = this.next = 1;
    this.end = 0;
    this.bigNext = 1n;
    this.bigEnd = 0n;
    this.queue.length = 0;
    return unused;
  }
}

/** Number of keys in `blocks`. */
export function keysIn(blocks: readonly Block[]): number {
  let keys = 0;
  for (const b of blocks) keys += Number(b.last - b.first + 1n);
  return keys;
}
