import { AsyncLocalStorage } from 'node:async_hooks';

/** One connection pinned to a session, and whether a statement on it found it broken. */
export interface PinnedConnection<C> {
  /** The connection; `undefined` once the session ended (a statement started later goes to the pool). */
  connection: C | undefined;
  /** Set when a statement on it failed with a connection error: it is destroyed, not returned to the pool. */
  broken: boolean;
}

/** What {@link pinnedSessions} gives a client: the session now in effect, and a way to run one. */
export interface PinnedSessions<C> {
  /** The live pinned connection of the session this code runs in, if any. */
  current(): PinnedConnection<C> | undefined;
  /** Runs `work` with every statement of the client it starts (across `await`s) on one pooled connection. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Sessions for a pooled client: `run(work)` takes one connection from the pool and every statement the client
 * sends from inside `work` goes to it, so a reservation and the probes that verify it need one connection, not
 * one per statement. That matters where hilo shares the application's pool (TypeORM): transactions that
 * hold every other connection while they wait for keys cannot starve the second statement of a reservation.
 * A nested `run` joins the session it is in.
 */
export function pinnedSessions<C>(
  acquire: () => Promise<C>,
  release: (connection: C, broken: boolean) => void,
): PinnedSessions<C> {
  const storage = new AsyncLocalStorage<PinnedConnection<C>>();
  const current = () => {
    const pinned = storage.getStore();
    return pinned?.connection === undefined ? undefined : pinned;
  };
  return {
    current,
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (current() !== undefined) return work();
      const pinned: PinnedConnection<C> = { connection: await acquire(), broken: false };
      try {
        return await storage.run(pinned, work);
      } finally {
        const connection = pinned.connection!;
        pinned.connection = undefined;
        release(connection, pinned.broken);
      }
    },
  };
}
