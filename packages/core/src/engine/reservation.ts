import { HiLoClosedError, HiLoError, HiLoSourceError, HiLoSynchronousStandbyError } from '../errors.js';
import { withTimeout, sleep } from './deadline.js';
import type { LostReason } from './events.js';
import type { Epoch, SegmentState } from './lifecycle.js';
import type { ServerView } from './server-watch.js';
import type { ResolvedOptions } from './options.js';
import type { Block } from './types.js';
import { reserveVerified, type VerifyTarget } from './verified-blocks.js';
import { exhaustedErrors, type ReservationLimit, sourceErrors, timeoutErrors } from '../error-messages.js';

/**
 * What a reservation needs from the segment it reserves for (a `Segment` of the generator): its state and floor,
 * and where the blocks go. The checks of the stored keys reach it through {@link VerifyTarget}.
 */
export interface ReservingSegment extends VerifyTarget {
  readonly name: string;
  /** `unverified`: the store is read before the first block is kept; `closed`: nothing is kept. */
  readonly state: SegmentState;
  /** The source's one-time preparation of this segment (creating its sequence or row), shared by attempts. */
  prepared: Promise<void> | undefined;
  /**
   * After a failover: the highest key reserved on the servers hilo left. Keys only grow in a process, so a block
   * at or below it is discarded and the store raised above it.
   */
  readonly floor: bigint | undefined;
  readonly stats: { failedAttempts: number };
  /** The block size to ask for, decided just before the source is called. */
  size(): number;
  /** Takes the blocks of a successful attempt (`ms`: how long it took); throwing refuses them. */
  accept(blocks: readonly Block[], ms: number): void;
  /**
   * Blocks granted but never used: they came after the attempt was abandoned, or after close, or a check of
   * the stored keys refused them, or they were reserved on a server hilo left (failover).
   */
  lose(blocks: readonly Block[], reason: LostReason): void;
}

/**
 * An error that discards an attempt's blocks (reserved across a failover, or on a server hilo left); it does not
 * make the server suspect. Retryable: reserving again, on the server hilo is on now, cures it. A `HiLoSourceError`
 * to the caller (its `name` says so); its own class only tells the engine not to suspect the server.
 */
class BlocksDiscarded extends HiLoSourceError {
  constructor(message: string) {
    super(message, { retryable: true });
    this.name = 'HiLoSourceError';
  }
}

/**
 * Whether a retryable error may mean the server went away (a lost connection, a timeout), not a decision of ours
 * or a conflict the server answered with (a deadlock, a Galera certification conflict: issue #47).
 */
function mayBeServerGone(error: unknown): boolean {
  if (error instanceof HiLoSourceError && error.conflict) return false;
  return !(error instanceof BlocksDiscarded) && !(error instanceof HiLoSynchronousStandbyError);
}

/**
 * Whether an error says the server cannot confirm a reservation yet, and a short wait may cure it: a leader whose
 * synchronous standby has not (re)connected yet, a server still in recovery (DESIGN rule 9, issue #47).
 */
function notConfirmedYet(error: unknown): boolean {
  return error instanceof HiLoSynchronousStandbyError && error.retryable;
}

/** The pause between two looks at a server that cannot confirm a reservation yet. */
const CONFIRM_PAUSE_MS = 200;

/**
 * Reserves blocks for `segment`: up to `attempts` attempts with full-jitter exponential backoff, each bounded
 * by `timeoutMs`, all within `retryBudgetMs`. Only retryable errors are retried; a block granted to an attempt
 * already abandoned (timed out, or the generator closed) is never used and is reported lost. A server that cannot
 * confirm a reservation yet (no synchronous standby yet) is a wait, not a failed attempt: it is asked again every
 * {@link CONFIRM_PAUSE_MS} for `timeoutMs` (also with one attempt, as `warm()` makes), then the usual rules apply.
 */
export async function reserveWithRetry(
  options: ResolvedOptions,
  segment: ReservingSegment,
  server: ServerView,
  signal: AbortSignal,
  attempts: number,
): Promise<void> {
  let lastError: unknown;
  const started = performance.now();
  const deadline = started + options.retryBudgetMs;
  let attempt = 0;
  let cutShort = false;
  while (attempt < attempts) {
    attempt++;
    if (signal.aborted) throw new HiLoClosedError();
    try {
      await reserveOnce(options, segment, server, signal);
      return;
    } catch (error) {
      lastError = error;
      segment.stats.failedAttempts++;
      if (segment.state === 'closed') throw new HiLoClosedError();
      const retryable = error instanceof HiLoError ? error.retryable : false;
      if (retryable && mayBeServerGone(error)) server.suspect(error);
      if (!retryable) {
        segment.emit({ type: 'failed', segment: segment.name, error });
        throw error;
      }
      if (notConfirmedYet(error) && performance.now() + CONFIRM_PAUSE_MS < started + options.timeoutMs) {
        segment.emit({ type: 'retry', segment: segment.name, attempt, delayMs: CONFIRM_PAUSE_MS, error });
        attempt--; // a wait for the server, not one of the `retries`
        await sleep(CONFIRM_PAUSE_MS, signal);
        continue;
      }
      if (attempt >= attempts) break;
      const ceiling = Math.min(options.retryMaxDelayMs, options.retryBaseDelayMs * 2 ** Math.min(attempt - 1, 30));
      // the budget bounds when the last attempt may start (and so does what the error says is worth it): a
      // backoff that would sleep past it is shortened so one last attempt starts just before the end
      const within =
        error instanceof HiLoError && error.retryWithinMs !== undefined ? started + error.retryWithinMs : deadline;
      const left = Math.floor(Math.min(deadline, within) - performance.now()) - 1;
      if (left <= 0) {
        cutShort = within < deadline;
        break;
      }
      const delayMs = Math.min(Math.floor(Math.random() * (ceiling + 1)), left);
      segment.emit({ type: 'retry', segment: segment.name, attempt, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
  segment.emit({ type: 'failed', segment: segment.name, error: lastError });
  if (attempts === 1) throw lastError;
  const elapsed = Math.round(performance.now() - started);
  const limit: ReservationLimit =
    attempt >= attempts ? { retries: attempts - 1 } : cutShort ? 'cut-short' : { retryBudgetMs: options.retryBudgetMs };
  const source = options.source.description;
  throw exhaustedErrors.reservationGaveUp(segment.name, source, attempt, elapsed, limit, lastError);
}

/**
 * One attempt, abandoned after `timeoutMs` or when `closeSignal` fires. Its blocks are kept only if the failover
 * epoch has not moved since the server they came from was read: since the reservation reached it (a source that
 * names its server) or, when the stored keys are checked too, since the attempt started (the checks may have read
 * any server meanwhile).
 */
async function reserveOnce(
  options: ResolvedOptions,
  segment: ReservingSegment,
  server: ServerView,
  closeSignal: AbortSignal,
): Promise<void> {
  const started = performance.now();
  let settled = false;
  const start = server.epoch;
  /** The epoch in which the blocks' server was last known to be the current one. */
  let epoch: Epoch = start;
  try {
    const blocks = await withTimeout(
      options.timeoutMs,
      () => timeoutErrors.attemptTimedOut(segment.name, options.source.description, options.timeoutMs),
      (signal) => {
        const work = (async () => {
          if (segment.prepared === undefined) {
            const source = options.source;
            segment.prepared = source.prepare ? source.prepare(segment.name, signal) : Promise.resolve();
            segment.prepared.catch(() => (segment.prepared = undefined));
          }
          await segment.prepared;
          const storedKeys = options.storedKeys;
          if (storedKeys === undefined) {
            const reserved = await reserveOnServer(options, segment, server, signal);
            epoch = reserved.epoch ?? start;
            return reserved.blocks;
          }
          const reserve = async () => (await reserveOnServer(options, segment, server, signal)).blocks;
          const verifyStart = segment.state === 'unverified';
          return await reserveVerified(options, storedKeys, segment.name, verifyStart, reserve, segment, signal);
        })();
        // a block granted after we gave up is never used: count it as lost
        work.then(
          (blocks) => {
            if (settled) segment.lose(blocks, 'late-reservation');
          },
          () => undefined,
        );
        return work;
      },
      { parent: closeSignal },
    );
    settled = true;
    if (segment.state === 'closed') {
      segment.lose(blocks, 'close');
      throw new HiLoClosedError();
    }
    if (server.epoch !== epoch) {
      // a failover was noticed since: these blocks (or the stored keys they were checked against) may come from the
      // server hilo left; the retry reserves on the new one, after reading its stored keys
      segment.lose(blocks, 'failover');
      throw new BlocksDiscarded(
        `A failover was noticed while keys for segment "${segment.name}" were being reserved; they are discarded ` +
          `and the reservation is tried again on the new server.`,
      );
    }
    // the blocks lie above the floor (reserveOnServer saw to it, and no failover came since): the segment is done
    // with it only now, once they are kept (`accept`), so that blocks discarded above cannot lift it for a retry on
    // a server behind
    segment.accept(blocks, performance.now() - started);
  } catch (error) {
    settled = true;
    throw normalize(options, error);
  }
}

/** How many times one attempt raises the store above the floor after a failover before it gives up. */
const MAX_RAISES = 3;

/**
 * One call of the source, with the server it reached compared with the one the blocks in memory came from
 * (DESIGN rule 7): a block from a server hilo has left is discarded (retryable), and after a failover a block not
 * above every key reserved before is discarded and the store raised above them, so keys only grow.
 */
async function reserveOnServer(
  options: ResolvedOptions,
  segment: ReservingSegment,
  server: ServerView,
  signal: AbortSignal,
): Promise<{ blocks: readonly Block[]; epoch: Epoch | undefined }> {
  const source = options.source;
  for (let raises = 0; ; raises++) {
    const seen: { server?: string } = {};
    const since = server.epoch;
    const blocks = await source.reserve(segment.name, {
      size: segment.size(),
      signal,
      server: (identity) => (seen.server = identity),
    });
    if (seen.server !== undefined && server.observe(seen.server, since) === 'retired') {
      segment.lose(blocks, 'failover');
      throw new BlocksDiscarded(
        `Hi source ${source.description} reserved keys for segment "${segment.name}" on a server hilo left after a ` +
          `failover (${seen.server}); they are discarded and the reservation is tried again.`,
      );
    }
    // the epoch in which this server is the current one (observing it may just have made it so: a failover)
    const epoch = seen.server === undefined ? undefined : server.epoch;
    if (seen.server === undefined) server.unidentified();
    const floor = segment.floor;
    if (floor === undefined || blocks.length === 0 || blocks[0]!.first > floor) return { blocks, epoch };
    segment.lose(blocks, 'failover');
    if (source.raiseAbove === undefined || raises >= MAX_RAISES) {
      // only a change by hand cures it: the source cannot raise its store, or something keeps moving it back
      const range = { first: blocks[0]!.first, last: blocks[blocks.length - 1]!.last };
      const raised = source.raiseAbove === undefined ? undefined : raises;
      throw sourceErrors.notAboveFloorAfterFailover(source.description, segment.name, range, floor, raised);
    }
    await source.raiseAbove(segment.name, floor, signal);
  }
}

/** A source that throws plain errors: an unknown outcome, worth a retry. */
function normalize(options: ResolvedOptions, error: unknown): unknown {
  if (error instanceof HiLoError) return error;
  return sourceErrors.sourceFailed(options.source.description, error);
}
