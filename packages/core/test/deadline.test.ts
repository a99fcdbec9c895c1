// The engine's one timeout helper (issue #48): what a reservation, a server check and a peer probe each wrote by hand
// before. Its timer is cleared and its listener removed on every path, so nothing of an attempt outlives it.
import { getEventListeners } from 'node:events';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeDeadline, sleep, withTimeout } from '../src/engine/deadline.js';

/** Timers alive in this process now (Node's own count, no fake timers). */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

const never = () => new Promise<never>(() => undefined);

describe('withTimeout', () => {
  it("resolves with the work's value, and leaves no timer and no listener behind", async () => {
    const parent = new AbortController();
    const before = timers();
    let seen: AbortSignal | undefined;
    const value = await withTimeout(
      60_000,
      () => new Error('late'),
      async (signal) => {
        seen = signal;
        return 42;
      },
      { parent: parent.signal },
    );
    expect(value).toBe(42);
    expect(seen?.aborted).toBe(false);
    expect(timers()).toBe(before);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it("rejects with the work's error, a synchronous throw included, and clears its timer", async () => {
    const before = timers();
    await expect(
      withTimeout(
        60_000,
        () => new Error('late'),
        () => Promise.reject(new Error('refused')),
      ),
    ).rejects.toThrow('refused');
    await expect(
      withTimeout(
        60_000,
        () => new Error('late'),
        () => {
          throw new Error('thrown at once');
        },
      ),
    ).rejects.toThrow('thrown at once');
    expect(timers()).toBe(before);
  });

  it('at the deadline, aborts the attempt with the very error it rejects with', async () => {
    const late = new Error('the server did not answer within timeoutMs (5 ms)');
    let seen: AbortSignal | undefined;
    const error = await withTimeout(
      5,
      () => late,
      (signal) => {
        seen = signal;
        return never();
      },
    ).catch((e: unknown) => e);
    expect(error).toBe(late);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(late);
  });

  it("passes the parent's abort on to the attempt, and still waits for the work's own answer", async () => {
    const parent = new AbortController();
    const closed = new Error('the generator closed');
    const result = withTimeout(
      60_000,
      () => new Error('late'),
      (signal) =>
        new Promise<string>((resolve) =>
          signal.addEventListener('abort', () => resolve(`aborted: ${(signal.reason as Error).message}`)),
        ),
      { parent: parent.signal },
    );
    parent.abort(closed);
    expect(await result).toBe('aborted: the generator closed');
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    // a parent already aborted aborts the attempt before the work starts
    const early = await withTimeout(
      60_000,
      () => new Error('late'),
      async (signal) => signal.reason as unknown,
      {
        parent: parent.signal,
      },
    );
    expect(early).toBe(closed);
  });
});

/** Keeps this thread busy for `ms`: the event loop runs nothing meanwhile, as in a long synchronous task or a GC. */
function blockThread(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('withTimeout counts only time the process could run', () => {
  it('an answer that arrived while the thread was blocked past the deadline is taken, not timed out', async () => {
    // started in the loop's check phase (setImmediate): the stat completes on libuv's thread pool while this thread
    // is blocked, and its callback waits for the next poll phase, which comes after the next timers phase, where a
    // plain 600 ms timer would fire first and reject
    const { answer } = await new Promise<{ answer: Promise<unknown> }>((started) =>
      setImmediate(() => {
        const attempt = withTimeout(
          600,
          () => new Error('timed out'),
          () => stat(fileURLToPath(import.meta.url)),
        );
        attempt.catch(() => undefined);
        blockThread(1500);
        started({ answer: attempt });
      }),
    );
    await expect(answer).resolves.toMatchObject({ size: expect.any(Number) });
  });

  it('a process that runs freely times out at timeoutMs, never before', async () => {
    const started = performance.now();
    const error = await withTimeout(300, () => new Error('timed out'), never).catch((e: unknown) => e);
    expect(error).toEqual(new Error('timed out'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(299);
  });

  it('a thread blocked again and again still times out, after at most about ten steps', async () => {
    let steps = 0;
    const started = performance.now();
    const answer = withTimeout(500, () => new Error('timed out'), never).catch((e: unknown) => e);
    // each turn of the loop blocks for 4 steps' time: a charge of at most 2 steps per turn ends the budget
    // within 5 turns, where a clock that forgave every stall in full would wait forever
    const blocker = setInterval(() => {
      steps += 1;
      blockThread(200);
    }, 1);
    try {
      expect(await answer).toEqual(new Error('timed out'));
    } finally {
      clearInterval(blocker);
    }
    expect(steps).toBeGreaterThan(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(499);
  });
});

describe('beforeDeadline and sleep', () => {
  it("beforeDeadline resolves with the work's value, or undefined once the deadline passed", async () => {
    expect(await beforeDeadline(Promise.resolve('done'), performance.now() + 60_000)).toBe('done');
    expect(await beforeDeadline(never(), performance.now() + 5)).toBeUndefined();
    expect(await beforeDeadline(never(), performance.now() - 1)).toBeUndefined();
  });

  it('sleep ends at once when its signal aborts, or was aborted before', async () => {
    const controller = new AbortController();
    let woke = false;
    const sleeping = sleep(60_000, controller.signal).then(() => (woke = true));
    controller.abort();
    await Promise.resolve();
    await Promise.resolve();
    expect(woke).toBe(true);
    await sleeping;
    let again = false;
    void sleep(60_000, controller.signal).then(() => (again = true));
    await Promise.resolve();
    expect(again).toBe(true);
  });
});
