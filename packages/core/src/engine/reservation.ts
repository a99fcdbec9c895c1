import {
  HiLoClosedError,
  HiLoError,
  HiLoExhaustedError,
  HiLoSourceError,
  HiLoSynchronousStandbyError,
  HiLoTimeoutError,
} from '../errors.js';
import { withTimeout, sleep } from './deadline.js';
import type { HiLoEvent, LostReason } from './events.js';
import type { Observed } from './server-watch.js';
import type { ResolvedOptions } from './options.js';
import type { Block } from './types.js';
import { reserveVerified } from './verified-blocks.js';

/** What a reservation needs from the segment it reserves for. */
export interface ReservingSegment {
  readonly name: string;
  /** The source's one-time preparation of this segment (creating its sequence or row), shared by attempts. */
  prepared: Promise<void> | undefined;
  /** Whether a reservation of this generator checked the store against the largest stored key (`storedKeys`). */
  startVerified: boolean;
  /**
   * After a failover: the highest key reserved on the servers hilo left. Keys only grow in a process, so a block
   * at or below it is discarded and the store raised above it.
   */
  floor: bigint | undefined;
  readonly stats: { failedAttempts: number };
}

/** What a reservation reports back to the generator that started it. */
export interface ReservationHooks {
  /** The block size to ask for, decided just before the source is called. */
  size(): number;
  /** Takes the blocks of a successful attempt (`ms`: how long it took); throwing refuses them. */
  accept(blocks: readonly Block[], ms: number): void;
  /**
   * Blocks granted but never used: they came after the attempt was abandoned, or after close, or a check of
   * the stored keys refused them, or they were reserved on a server hilo left (failover).
   */
  lose(blocks: readonly Block[], reason: LostReason): void;
  /**
   * A reservation reached the server `identity` (read in its own statement); `since`: the failovers seen when it was
   * sent. `retired`: a late answer from a server hilo has left.
   */
  observe(identity: string, since: number): Observed;
  /** A reservation failed in a way that may mean the server went away: look at the server now. */
  suspect(error: unknown): void;
  /** A reservation reported no server: the generator may learn it from a check instead. */
  unidentified(): void;
  /** How many failovers the generator has seen: blocks of an attempt that saw this change are never used. */
  failovers(): number;
  /** The keys in hand never handed out, ascending. */
  unissued(): readonly Block[];
  /** The blocks in hand with how many keys of each were handed out. */
  held(): readonly { block: Block; handedOut: bigint }[];
  /** Refuses the segment for good: drops the keys in hand; every later call rejects with `error`. */
  refuse(error: HiLoError): void;
  /** Whether the generator has been closed. */
  closed(): boolean;
  emit(event: HiLoEvent): void;
}

/** Errors the engine raises itself to discard blocks and try again: they say nothing about the connection. */
const discards = new WeakSet<object>();

/**
 * An error that discards an attempt's blocks (reserved across a failover, or on a server hilo left); it does not
 * make the server suspect. Retryable: reserving again, on the server hilo is on now, cures it.
 */
function discard(message: string): HiLoSourceError {
  const error = new HiLoSourceError(message, { retryable: true });
  discards.add(error);
  return error;
}

/**
 * Whether a retryable error may mean the server went away (a lost connection, a timeout), not a decision of ours
 * or a conflict the server answered with (a deadlock, a Galera certification conflict: issue #47).
 */
function mayBeServerGone(error: unknown): boolean {
  if (error instanceof HiLoSourceError && error.conflict) return false;
  return !discards.has(error as object) && !(error instanceof HiLoSynchronousStandbyError);
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
  hooks: ReservationHooks,
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
      await reserveOnce(options, segment, hooks, signal);
      return;
    } catch (error) {
      lastError = error;
      segment.stats.failedAttempts++;
      if (hooks.closed()) throw new HiLoClosedError();
      const retryable = error instanceof HiLoError ? error.retryable : false;
      if (retryable && mayBeServerGone(error)) hooks.suspect(error);
      if (!retryable) {
        hooks.emit({ type: 'failed', segment: segment.name, error });
        throw error;
      }
      if (notConfirmedYet(error) && performance.now() + CONFIRM_PAUSE_MS < started + options.timeoutMs) {
        hooks.emit({ type: 'retry', segment: segment.name, attempt, delayMs: CONFIRM_PAUSE_MS, error });
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
      hooks.emit({ type: 'retry', segment: segment.name, attempt, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
  hooks.emit({ type: 'failed', segment: segment.name, error: lastError });
  if (attempts === 1) throw lastError;
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  const elapsed = Math.round(performance.now() - started);
  const limit =
    attempt >= attempts
      ? `the limit set by \`retries\` (${attempts - 1}): ${reason} Raise \`retries\` to try longer.`
      : cutShort
        ? `as long as retrying this error can help: ${reason}`
        : `the limit set by \`retryBudgetMs\` (${options.retryBudgetMs} ms): ${reason} Raise \`retryBudgetMs\` ` +
          `to wait longer for the database.`;
  throw new HiLoExhaustedError(
    `Could not reserve keys for segment "${segment.name}" from ${options.source.description} after ` +
      `${attempt} attempts in ${elapsed} ms, ${limit}`,
    { cause: lastError },
  );
}

/** One attempt, abandoned after `timeoutMs` or when `closeSignal` fires. */
async function reserveOnce(
  options: ResolvedOptions,
  segment: ReservingSegment,
  hooks: ReservationHooks,
  closeSignal: AbortSignal,
): Promise<void> {
  const started = performance.now();
  let settled = false;
  // the failovers seen when the blocks' server was last known to be the current one
  let epoch = hooks.failovers();
  try {
    const blocks = await withTimeout(
      options.timeoutMs,
      () =>
        new HiLoTimeoutError(
          `Reserving keys for segment "${segment.name}" from ${options.source.description} took longer ` +
            `than ${options.timeoutMs} ms; the attempt was abandoned and any block it gets is discarded.`,
        ),
      (signal) => {
        const work = (async () => {
          if (segment.prepared === undefined) {
            const source = options.source;
            segment.prepared = source.prepare ? source.prepare(segment.name, signal) : Promise.resolve();
            segment.prepared.catch(() => (segment.prepared = undefined));
          }
          await segment.prepared;
          const reserve = () => reserveOnServer(options, segment, hooks, signal, (n) => (epoch = n));
          const storedKeys = options.storedKeys;
          if (storedKeys === undefined) return await reserve();
          const failoversBefore = hooks.failovers();
          const blocks = await reserveVerified(
            options,
            storedKeys,
            segment.name,
            !segment.startVerified,
            reserve,
            hooks,
            signal,
          );
          if (hooks.failovers() !== failoversBefore) {
            // the checks may have read the server hilo left (or skipped the new one's start check): check again there
            hooks.lose(blocks, 'failover');
            throw discard(
              `A failover was noticed while keys for segment "${segment.name}" were being reserved and checked; ` +
                `they are discarded and reserved again on the new server, after its stored keys are read.`,
            );
          }
          segment.startVerified = true;
          return blocks;
        })();
        // a block granted after we gave up is never used: count it as lost
        work.then(
          (blocks) => {
            if (settled) hooks.lose(blocks, 'late-reservation');
          },
          () => undefined,
        );
        return work;
      },
      { parent: closeSignal },
    );
    settled = true;
    if (hooks.closed()) {
      hooks.lose(blocks, 'close');
      throw new HiLoClosedError();
    }
    if (hooks.failovers() !== epoch) {
      // a failover was noticed while these blocks were being checked: they may come from the server hilo left
      hooks.lose(blocks, 'failover');
      throw discard(
        `A failover was noticed while keys for segment "${segment.name}" were being reserved; they are discarded ` +
          `and the reservation is tried again on the new server.`,
      );
    }
    // the blocks lie above the floor (reserveOnServer saw to it, and no failover came since): it is done with only
    // now, once they are kept, so that blocks discarded above cannot lift it for a retry on a server behind
    segment.floor = undefined;
    hooks.accept(blocks, performance.now() - started);
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
  hooks: ReservationHooks,
  signal: AbortSignal,
  onServer: (failovers: number) => void,
): Promise<readonly Block[]> {
  const source = options.source;
  for (let raises = 0; ; raises++) {
    const seen: { server?: string } = {};
    const since = hooks.failovers();
    const blocks = await source.reserve(segment.name, {
      size: hooks.size(),
      signal,
      server: (identity) => (seen.server = identity),
    });
    if (seen.server !== undefined && hooks.observe(seen.server, since) === 'retired') {
      hooks.lose(blocks, 'failover');
      throw discard(
        `Hi source ${source.description} reserved keys for segment "${segment.name}" on a server hilo left after a ` +
          `failover (${seen.server}); they are discarded and the reservation is tried again.`,
      );
    }
    if (seen.server !== undefined) onServer(hooks.failovers());
    else hooks.unidentified();
    const floor = segment.floor;
    if (floor === undefined || blocks.length === 0 || blocks[0]!.first > floor) return blocks;
    hooks.lose(blocks, 'failover');
    if (source.raiseAbove === undefined || raises >= MAX_RAISES) {
      throw new HiLoSourceError(
        `Hi source ${source.description} returned block [${blocks[0]!.first}, ${blocks[blocks.length - 1]!.last}] ` +
          `for segment "${segment.name}" after a failover, not above key ${floor} reserved before it` +
          (source.raiseAbove === undefined ? ', and it cannot raise its store. ' : ` after ${raises} raises. `) +
          `Move the store of segment "${segment.name}" above key ${floor} by hand (the sequence's next value, or ` +
          `the hi table's row); \`hilo floor ${segment.name} --from TABLE.COLUMN\` does it once every key handed ` +
          `out before is stored in that column.`,
        // only a change by hand cures it: the source cannot raise its store, or something keeps moving it back
        { retryable: false },
      );
    }
    await source.raiseAbove(segment.name, floor, signal);
  }
}

/** A source that throws plain errors: an unknown outcome, worth a retry. */
function normalize(options: ResolvedOptions, error: unknown): unknown {
  if (error instanceof HiLoError) return error;
  return new HiLoSourceError(
    `Hi source ${options.source.description} failed: ${error instanceof Error ? error.message : String(error)}`,
    {
      cause: error,
      retryable: true,
    },
  );
}
