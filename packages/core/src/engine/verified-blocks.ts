import { HiLoStoreBehindError, type HiLoError } from '../errors.js';
import { beforeDeadline, withTimeout } from './deadline.js';
import type { HiLoEvent } from './events.js';
import type { SegmentState } from './lifecycle.js';
import type { ResolvedOptions } from './options.js';
import type { ServerView } from './server-watch.js';
import type { Block, StoredKey, StoredKeys, StoreOverlap } from './types.js';

/** How many times one attempt lifts the floor and reserves again before it gives up (a peer racing it down). */
const MAX_LIFTS = 3;

/** The segment a verified reservation (or a peer probe) checks and reports to (a `Segment` of the generator). */
export interface VerifyTarget {
  /** Blocks discarded because the store was behind, or read differently by a peer: never handed out. */
  lose(blocks: readonly Block[], reason: 'store-behind' | 'mismatch'): void;
  emit(event: HiLoEvent): void;
  /** The keys in hand that were never handed out, ascending (the current block's rest and the queued blocks). */
  unissued(): readonly Block[];
  /** The blocks in hand (the current one whole) with how many keys of each were handed out. */
  held(): readonly { block: Block; handedOut: bigint }[];
  /** Refuses the segment for good with `error`: the keys in hand are dropped (lost) and no key is handed out again. */
  refuse(error: HiLoError): void;
  /** Removes and returns every key in hand never handed out (the current block's rest, the queued blocks). */
  dropUnissued(): Block[];
}

/**
 * The keys in hand checked against the tables found since they were checked (`StoredKeys.recheck`: a tenant's table
 * created while the application runs, `tenants: '*'`). Such a table may hold keys of a block reserved before it
 * existed (a tenant restored, or copied from another installation), so when it holds one of the keys in hand, every
 * key in hand is dropped (lost as `store-behind`, with a `HILO_TENANT_KEYS_DROPPED` process warning) and the next
 * block, checked against every tenant's table, decides as ever (`onStoreBehind`). Dropping is safe whatever the store
 * holds: gaps are fine. Not for a store shared with a peer (a peer's key in hand refuses the segment instead).
 */
export async function recheckInHand(
  storedKeys: StoredKeys,
  segment: string,
  target: VerifyTarget,
  signal: AbortSignal,
): Promise<void> {
  if (storedKeys.recheck === undefined || storedKeys.sharedWith !== undefined) return;
  const held = target.unissued();
  if (held.length === 0) return;
  const found = await storedKeys.recheck(segment, held, signal);
  if (found === undefined) return;
  const dropped = target.dropUnissued();
  const keys = dropped.reduce((n, b) => n + (b.last - b.first + 1n), 0n);
  if (dropped.length > 0) target.lose(dropped, 'store-behind');
  const { stored, block } = found;
  process.emitWarning(
    `hilo: ${stored.table}.${stored.column} holds key ${stored.key}, inside the keys of segment "${segment}" in hand ` +
      `(${block.first}…${block.last}), and was not there when they were checked (a tenant created while the ` +
      `application runs: restored, or copied from elsewhere); the ${keys} keys still in hand were discarded, and the ` +
      `next block is checked against every tenant's table.`,
    { code: 'HILO_TENANT_KEYS_DROPPED' },
  );
}

/** Whether `key` lies in one of `blocks`. */
function inside(key: bigint, blocks: readonly Block[]): boolean {
  return blocks.some((b) => b.first <= key && key <= b.last);
}

/**
 * With a store shared with a peer: keys stored inside a block hilo holds that hilo did not hand out are the
 * peer's (it writes into a block hilo holds: it reads the store as if each value stood for keys below the ones
 * hilo reads). Two sound signs, each read so that keys hilo hands out while the probe runs count as hilo's: a
 * stored key among the keys never handed out (still unissued after the probe), and, with `counts`, a table
 * storing more keys of a block in hand than hilo has handed out of it (hilo hands out each key once, so correct
 * writers never store more; this one also sees the peer's keys among those hilo handed out but not stored yet).
 */
async function peerKeyInHand(
  storedKeys: StoredKeys,
  segment: string,
  target: VerifyTarget,
  signal: AbortSignal,
): Promise<Omit<StoreOverlap, 'segment' | 'where'> | undefined> {
  for (const block of target.unissued()) {
    signal.throwIfAborted();
    const stored = await storedKeys.within(segment, block, signal);
    if (stored !== undefined && inside(stored.key, target.unissued())) return { stored, block };
  }
  if (storedKeys.counts !== undefined) {
    for (const { block } of target.held()) {
      signal.throwIfAborted();
      const counts = await storedKeys.counts(segment, block, signal);
      const now = target.held().find((h) => h.block.first === block.first);
      // a block no longer held was used up (or dropped): every key of it may be ours
      const handedOut = now === undefined ? block.last - block.first + 1n : now.handedOut;
      const over = counts.find((c) => c.keys > handedOut);
      if (over === undefined) continue;
      const stored = (await storedKeys.within(segment, block, signal)) ?? { key: block.last, ...over };
      return {
        stored: { ...stored, table: over.table, column: over.column },
        block,
        counted: { keys: over.keys, handedOut },
      };
    }
  }
  return undefined;
}

/**
 * The peer's key among the blocks `segment` holds, probed on one connection where the client pools them
 * (`StoredKeys.session`): what a reservation checks before it reserves, and what {@link PeerCheck} checks between
 * reservations. Read so that keys hilo hands out while it runs count as hilo's (see {@link peerKeyInHand}).
 */
async function peerInHand(
  storedKeys: StoredKeys,
  segment: string,
  target: VerifyTarget,
  signal: AbortSignal,
): Promise<StoreOverlap | undefined> {
  const work = () => peerKeyInHand(storedKeys, segment, target, signal);
  const held = await (storedKeys.session === undefined ? work() : storedKeys.session(work));
  return held === undefined ? undefined : { segment, ...held, where: 'in-hand' };
}

/** What the source's `kind` says, for the CLI command in the error's hint (`--source sequence|table`). */
function kindOf(source: unknown): string | undefined {
  const kind = (source as { kind?: unknown }).kind;
  return typeof kind === 'string' ? kind : undefined;
}

/**
 * Reserves blocks for `segment` through `reserve` and checks them against the segment's stored keys before
 * any key of them can be handed out (DESIGN rule 6). `start` is true for the segment's first reservation in
 * this generator: then the largest stored key is read BEFORE the source is called, and a block whose first
 * key is not above it proves the store behind.
 *
 * Why that cannot raise a false alarm: a correct concurrent writer (another process, ORM or peer sharing the
 * store) stores only keys of blocks it reserved from the same store. A key we read before calling the source
 * was stored before our reservation started, so its block was reserved before ours, and the store hands out
 * blocks in increasing order: that key is below our block. Only a store that went back (or a peer reserving
 * from a different store) can return a block at or below a key already stored. The same argument makes
 * `within` safe for every later block: no correct writer ever holds a key inside a block reserved for us.
 *
 * On a failed check the blocks are reported lost and, with `onStoreBehind: 'error'`, the attempt rejects with
 * `HiLoStoreBehindError` (not retryable); with `'lift'` the source raises its store above the largest stored
 * key (never backwards), and the reservation and its checks run again.
 *
 * A store shared with a peer (`storedKeys.sharedWith`, from an interop preset) is different: a stored key in a
 * new block is the peer's, and the peer reads the store with other settings, so the segment is refused for good
 * with the peer's mismatch error (the blocks in hand are dropped too). Before reserving, the keys in hand that
 * were never handed out are probed as well: a peer that reads each value as keys below hilo's writes there.
 */
export async function reserveVerified(
  options: ResolvedOptions,
  storedKeys: StoredKeys,
  segment: string,
  start: boolean,
  reserve: () => Promise<readonly Block[]>,
  target: VerifyTarget,
  signal: AbortSignal,
): Promise<readonly Block[]> {
  // the reservation and its probes on one connection where the client pools them (see StoredKeys.session)
  const onOneConnection = <T>(work: () => Promise<T>): Promise<T> =>
    storedKeys.session === undefined ? work() : storedKeys.session(work);
  const shared = storedKeys.sharedWith;
  if (shared !== undefined) {
    const overlap = await peerInHand(storedKeys, segment, target, signal);
    if (overlap !== undefined) {
      const error = shared.mismatch(overlap);
      target.refuse(error);
      throw error;
    }
  }
  // a tenant created since the keys in hand were checked: those it holds are never handed out
  await recheckInHand(storedKeys, segment, target, signal);
  for (let lifts = 0; ; lifts++) {
    const checkLargest = start;
    const { blocks, found } = await onOneConnection(async () => {
      const largest = checkLargest ? await storedKeys.largest(segment, signal) : undefined;
      const blocks = await reserve();
      let found: { stored: StoredKey; block: Block; where: 'start' | 'block' } | undefined;
      if (blocks.length > 0 && largest !== undefined && largest.key >= blocks[0]!.first)
        found = { stored: largest, block: blocks[0]!, where: 'start' };
      for (const block of blocks) {
        if (found !== undefined) break;
        const stored = await storedKeys.within(segment, block, signal);
        if (stored !== undefined) found = { stored, block, where: 'block' };
      }
      return { blocks, found };
    });
    if (blocks.length === 0) return blocks;
    if (found === undefined) return blocks;
    if (shared !== undefined) {
      // a peer reading the store with other settings: lifting the floor would not change how it reads it
      target.lose(blocks, 'mismatch');
      const error = shared.mismatch({ segment, ...found });
      target.refuse(error);
      throw error;
    }
    target.lose(blocks, 'store-behind');
    const { stored, block } = found;
    const details = {
      segment,
      table: stored.table,
      column: stored.column,
      block,
      storedKey: stored.key,
      source: options.source.description,
      kind: kindOf(options.source),
      ...(stored.floorFrom === undefined ? {} : { floorFrom: stored.floorFrom }),
    };
    if (options.onStoreBehind === 'error') throw new HiLoStoreBehindError(details);
    const source = options.source;
    if (source.raiseAbove === undefined) {
      throw new HiLoStoreBehindError({ ...details, liftFailed: `${source.description} cannot raise its floor.` });
    }
    if (lifts >= MAX_LIFTS) {
      throw new HiLoStoreBehindError({
        ...details,
        liftFailed: `it was lifted ${MAX_LIFTS} times and fell behind again; something keeps moving it back.`,
      });
    }
    // above the largest stored key of every table, not just the one that collided (sparse rows from a peer)
    const top = (await storedKeys.largest(segment, signal)) ?? stored;
    const floor = top.key > stored.key ? top : stored;
    await source.raiseAbove(segment, floor.key, signal);
    target.emit({
      type: 'floor-lifted',
      segment,
      table: floor.table,
      column: floor.column,
      storedKey: floor.key,
      block,
    });
    process.emitWarning(
      `hilo: the hi store of segment "${segment}" was behind ${floor.table}.${floor.column} (key ${floor.key} stored, ` +
        `block ${block.first}…${block.last} handed out); lifted its floor above ${floor.key} ` +
        `(onStoreBehind: 'lift'). Find out what moved it back (a restore, a reset, a peer set up differently).`,
      { code: 'HILO_FLOOR_LIFTED' },
    );
    start = true;
  }
}

/** One segment as {@link PeerCheck} sees it. */
export interface PeerCheckTarget extends VerifyTarget {
  readonly name: string;
  /** `refused` segments are not probed again (nor `closed` ones, which hold no key). */
  readonly state: SegmentState;
  /**
   * Blocks used up since the last round (see `SegmentBlocks.retired`), kept by the segment while the check runs: a
   * round takes them, counts their stored keys (every key of them was handed out), and puts them back when it fails.
   */
  retired: Block[] | undefined;
  /** Keeps used-up blocks a round probed for the last check at `close()` (see `SegmentBlocks.probed`). */
  keepProbed?(blocks: readonly Block[]): void;
}

/** The segment's state now (not as narrowed before an await). */
function stateOf(target: PeerCheckTarget): SegmentState {
  return target.state;
}

/** `target` with its used-up blocks `retired` counted as held, every key of them handed out. */
function withRetired(target: PeerCheckTarget, retired: readonly Block[]): PeerCheckTarget {
  if (retired.length === 0) return target;
  const whole = retired.map((block) => ({ block, handedOut: block.last - block.first + 1n }));
  return {
    name: target.name,
    state: target.state,
    retired: undefined,
    lose: (blocks, reason) => target.lose(blocks, reason),
    emit: (event) => target.emit(event),
    unissued: () => target.unissued(),
    held: () => [...whole, ...target.held()],
    refuse: (error) => target.refuse(error),
    dropUnissued: () => target.dropUnissued(),
  };
}

/** The blocks a segment held at `close()`, as they were before it closed: what the last round probes. */
export interface LastPeerCheckTarget {
  readonly target: PeerCheckTarget;
  readonly unissued: readonly Block[];
  readonly held: readonly { block: Block; handedOut: bigint }[];
  readonly retired: readonly Block[];
}

/**
 * Probes the blocks in hand of a store shared with a peer (`storedKeys.sharedWith`) every `intervalMs`, between
 * reservations, with the same check a reservation runs first ({@link peerInHand}): a peer that writes into a block
 * hilo holds is found within one interval (plus one probe), not at hilo's next reservation, and the segment is
 * refused as that reservation would refuse it (the peer's mismatch error, the keys in hand lost as `mismatch`).
 *
 * Never on the hot path: it runs on an unref'd timer, one round at a time (a round still running when the next
 * is due is not doubled), only for segments holding keys never handed out, and not while the server is
 * unconfirmed. A probe that fails (a lost connection, `timeoutMs` passed) or saw a failover is "unknown": it
 * refuses nothing and ends the round; the next round (or the next reservation, which probes the same) tries again.
 */
export class PeerCheck {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  /** Aborted by `stop()` once its deadline passed: aborts the probe in flight. */
  private readonly closing = new AbortController();
  private stopped = false;

  /**
   * @param targets the segments of the generator (read at each round)
   * @param server the failover epoch (a round that saw it move refuses nothing: it may have read either server) and
   *   whether the server is unconfirmed (nothing is probed then)
   */
  constructor(
    private readonly storedKeys: StoredKeys | undefined,
    private readonly intervalMs: number | undefined,
    private readonly timeoutMs: number,
    private readonly targets: () => Iterable<PeerCheckTarget>,
    private readonly server: Pick<ServerView, 'epoch' | 'unconfirmed'>,
  ) {}

  /** Whether this generator probes a store shared with a peer between reservations (and once more at close). */
  get enabled(): boolean {
    return this.intervalMs !== undefined && this.storedKeys?.sharedWith !== undefined;
  }

  /** Starts the timer (idempotent): called when a segment first holds a block. */
  start(): void {
    if (this.stopped || this.timer !== undefined || !this.enabled) return;
    // a round that throws (a mismatch builder or an onEvent that throws) refuses nothing here; the reservation's
    // check, which runs the same, reports it to the caller
    this.timer = setInterval(() => void this.check().catch(() => undefined), this.intervalMs);
    this.timer.unref();
  }

  /** One round over every segment holding keys never handed out; the round in flight when one is running. */
  check(): Promise<void> {
    this.round ??= this.checkOnce().finally(() => (this.round = undefined));
    return this.round;
  }

  /**
   * A round that starts after this call (the one in flight, if any, is waited for first): resolves once it has
   * refused what it found. What tests and `close()` use to drive the check instead of waiting for the timer.
   */
  async checkNow(): Promise<void> {
    await this.round?.catch(() => undefined);
    await this.check();
  }

  private async checkOnce(): Promise<void> {
    const storedKeys = this.storedKeys;
    const shared = storedKeys?.sharedWith;
    if (storedKeys === undefined || shared === undefined) return;
    for (const target of [...this.targets()]) {
      if (this.stopped) return;
      if (target.state !== 'serving' || this.server.unconfirmed) continue;
      const retired = target.retired?.splice(0) ?? [];
      if (target.unissued().length === 0 && retired.length === 0) continue;
      const since = this.server.epoch;
      let overlap: StoreOverlap | undefined;
      try {
        overlap = await withTimeout(
          this.timeoutMs,
          () => new Error(`the probe of the keys in hand took longer than timeoutMs (${this.timeoutMs} ms)`),
          (signal) => peerInHand(storedKeys, target.name, withRetired(target, retired), signal),
          { parent: this.closing.signal, unref: true },
        );
      } catch {
        // unknown, not a refusal: a lost connection says nothing about the peer; the rest of the round would likely
        // fail the same way, so the next round (or the next reservation, which probes the same) tries again
        target.retired?.unshift(...retired);
        return;
      }
      // probed once; the last check at close() probes them again (a peer may still write into them)
      target.keepProbed?.(retired);
      // read again: the segment may have changed while the probe ran. A round in flight when close() began still
      // counts (close() waits for it, and reports what it found)
      const state = stateOf(target);
      if (overlap === undefined || (state !== 'serving' && !(this.stopped && state === 'closed'))) continue;
      // a failover or parked keys while it ran: it may have read a server the blocks were not reserved on
      if (this.server.epoch !== since || this.server.unconfirmed) continue;
      target.refuse(shared.mismatch(overlap));
    }
  }

  /**
   * The last round, run by `close()` after {@link stop} over the blocks each segment held when it closed (its keys in
   * hand and the blocks it used up since the last round), so that a run that ends within one interval of a peer's
   * write still finds it: each segment found is refused with the peer's mismatch error (`close()` rejects with it).
   * Bounded: each probe by `timeoutMs` and the round by `deadline` (a `performance.now()` time); a probe that fails
   * or runs out of time is unknown, not a refusal, and ends the round.
   */
  async last(targets: readonly LastPeerCheckTarget[], deadline: number): Promise<void> {
    const storedKeys = this.storedKeys;
    const shared = storedKeys?.sharedWith;
    if (storedKeys === undefined || shared === undefined || !this.enabled) return;
    for (const { target, unissued, held, retired } of targets) {
      if (unissued.length === 0 && held.length === 0 && retired.length === 0) continue;
      const left = Math.min(this.timeoutMs, deadline - performance.now());
      if (left <= 0) return;
      const frozen: PeerCheckTarget = {
        name: target.name,
        state: 'serving',
        retired: undefined,
        lose: (blocks, reason) => target.lose(blocks, reason),
        emit: (event) => target.emit(event),
        unissued: () => unissued,
        held: () => held,
        refuse: (error) => target.refuse(error),
        dropUnissued: () => [],
      };
      let overlap: StoreOverlap | undefined;
      try {
        overlap = await withTimeout(
          left,
          () => new Error(`the last probe of the keys in hand took longer than ${Math.round(left)} ms`),
          (signal) => peerInHand(storedKeys, target.name, withRetired(frozen, retired), signal),
          { unref: true },
        );
      } catch {
        return;
      }
      if (overlap !== undefined) target.refuse(shared.mismatch(overlap));
    }
  }

  /**
   * Stops the timer (the generator closes) and waits for the round in flight until `deadline` (a
   * `performance.now()` time), then aborts it: no probe is sent after this resolves.
   */
  async stop(deadline: number): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    const round = this.round;
    if (round === undefined) return;
    await beforeDeadline(round, deadline);
    this.closing.abort(new Error('the generator closed'));
  }
}
