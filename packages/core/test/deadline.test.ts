// The engine's one timeout helper (issue #48): what a reservation, a server check and a peer probe each wrote by hand
// before. Its timer is cleared and its listener removed on every path, so nothing of an attempt outlives it.
import { getEventListeners } from 'node:events';
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
