// The engine's timers around work that may never answer (a stalled connection, a pooler holding a query): one
// place that races work against a deadline, aborts it there, and clears its timer on every path.

import { AsyncLocalStorage } from 'node:async_hooks';

/** The signal of the attempt ({@link withTimeout}) the code runs in. */
const attempts = new AsyncLocalStorage<AbortSignal>();

/**
 * The signal of the {@link withTimeout} attempt this code runs in (across `await`s), if any: a pooled client
 * abandons a statement with it, destroying the connection it waits on instead of waiting on it again.
 */
export function attemptSignal(): AbortSignal | undefined {
  return attempts.getStore();
}

/** How {@link withTimeout} ties an attempt to the rest of the engine. */
export interface TimeoutOptions {
  /**
   * Aborts the attempt too (with this signal's reason) when it aborts first, e.g. when the generator closes. The
   * attempt still ends when `work` does, or at the deadline: what `work` returns after an abort is the caller's to
   * judge (a block granted to an abandoned attempt is discarded, never handed out).
   */
  readonly parent?: AbortSignal | undefined;
  /** Whether the timer must not keep the process alive (a check between reservations), default false. */
  readonly unref?: boolean;
}

/**
 * Runs `work` with a signal of its own, for at most `timeoutMs` of time this process could run (see
 * {@link runningClock}): resolves or rejects as `work` does, or, once that has passed, aborts the signal with
 * `timedOut()`'s error and rejects with that same error (the work may still finish; its outcome is then the
 * caller's to discard). The timer is cleared, and the listener on
 * `options.parent` removed, on every path.
 */
export async function withTimeout<T>(
  timeoutMs: number,
  timedOut: () => Error,
  work: (signal: AbortSignal) => Promise<T>,
  options: TimeoutOptions = {},
): Promise<T> {
  const attempt = new AbortController();
  const parent = options.parent;
  const onParentAbort = () => attempt.abort(parent?.reason);
  if (parent?.aborted === true) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  let clock: { clear(): void } | undefined;
  const expired = new Promise<never>((_, reject) => {
    clock = runningClock(
      timeoutMs,
      () => {
        const error = timedOut();
        attempt.abort(error);
        reject(error);
      },
      options.unref === true,
    );
  });
  try {
    // a `work` that throws before its first await rejects like one that fails later
    // statements started inside know the attempt (attemptSignal), so the client drops what it abandons
    const running = attempts.run(attempt.signal, async () => work(attempt.signal));
    return await Promise.race([running, expired]);
  } finally {
    clock?.clear();
    parent?.removeEventListener('abort', onParentAbort);
  }
}

/** The shortest step of {@link runningClock}, in milliseconds. */
const MIN_STEP_MS = 50;
/** How many steps {@link runningClock} divides a budget into. */
const STEPS = 10;

/**
 * Calls `expire` once `budgetMs` of time this process could have run has passed: time the process itself did not run
 * (a long synchronous task, a garbage collection, a stopped or starved process) is not charged to the database. The
 * budget runs down in steps of a tenth of it (at least 50 ms); a step that comes late is charged at most twice its
 * length, since the answer it waited for may have been waiting in the socket, unread, all along. A step is never
 * charged less than its length, so `expire` comes after at most about 10 steps whatever the process does, and
 * with a process that runs freely, after `budgetMs`.
 */
export function runningClock(budgetMs: number, expire: () => void, unref: boolean): { clear(): void } {
  const step = Math.max(MIN_STEP_MS, Math.ceil(budgetMs / STEPS));
  let left = budgetMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const planned = Math.min(step, left);
    const armedAt = performance.now();
    timer = setTimeout(() => {
      const waited = performance.now() - armedAt;
      left -= Math.min(Math.max(waited, planned), 2 * planned);
      if (left <= 0) expire();
      else arm();
    }, planned);
    if (unref) timer.unref();
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}

/**
 * Resolves with `work`'s value, or with `undefined` once `deadline` (a `performance.now()` time) has passed; `work`
 * is not aborted (its caller aborts what it must). The timer never keeps the process alive and is cleared either way.
 */
export function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  work.catch(() => undefined);
  const left = deadline - performance.now();
  if (left <= 0) return Promise.race([work, Promise.resolve(undefined)]);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), left);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Waits `ms`, or less: it ends at once when `signal` aborts (the generator closing), and never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted === true) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
