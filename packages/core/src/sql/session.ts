import { AsyncLocalStorage } from 'node:async_hooks';
import { attemptSignal } from '../engine/deadline.js';
import { abortable } from './abortable.js';
import type { SqlClient, SqlExecutor, SqlResult } from './sql-client.js';

/** One connection pinned to a session, and whether a statement on it found it broken. */
export interface PinnedConnection<C> {
  /**
   * The connection; `undefined` once the session ended or the connection broke (a statement started later goes
   * to the pool, so that a retry after a lost connection gets a new one).
   */
  connection: C | undefined;
  /** Set when a statement on it failed with a connection error: it is destroyed, not returned to the pool. */
  broken: boolean;
  /** The attempt the session serves (see {@link attemptSignal}): its statements are abandoned with it. */
  readonly signal?: AbortSignal | undefined;
}

/** What {@link pinnedSessions} gives a client: the session now in effect, and a way to run one. */
export interface PinnedSessions<C> {
  /** The live pinned connection of the session this code runs in, if any. */
  current(): PinnedConnection<C> | undefined;
  /** Runs `work` with every statement of the client it starts (across `await`s) on one pooled connection. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The attempt a statement starting now serves, if it is still running. Work that goes on after its attempt was
 * abandoned (or outside any attempt) runs unguarded, as before attempts existed.
 */
function liveAttempt(): AbortSignal | undefined {
  const signal = attemptSignal();
  return signal?.aborted === false ? signal : undefined;
}

/**
 * Runs one statement on the session's connection with `executor`; a connection error (`isBroken`) marks the
 * connection broken and unpins it, so the rest of the session (a retry) goes to the pool and the connection is
 * destroyed when the session ends.
 */
export async function onPinned<C, R>(
  pinned: PinnedConnection<C>,
  run: (connection: C) => Promise<R>,
  isBroken: (error: unknown) => boolean,
): Promise<R> {
  try {
    return await abortable(run(pinned.connection!), pinned.signal, 'running a statement');
  } catch (error) {
    if (isBroken(error)) {
      pinned.broken = true;
      pinned.connection = undefined;
    }
    throw error;
  }
}

/**
 * Connections taken from a pool for hilo's work, with what a network that swallows traffic ("blackhole") needs:
 * - a connection whose statement an attempt abandoned (it timed out, the generator closed) is destroyed at once,
 *   never given back: it may be dead without either side knowing, and the next statement would wait on it again;
 * - the pool's other connections may be dead the same way, so each taken afterwards that hilo had taken before the
 *   abandon (it sat idle through it) is destroyed too, and another taken, until the pool opens a new one.
 * So after the network heals, the first statement runs on a new connection, and no dead one is waited on twice.
 */
export interface Leases<C> {
  /**
   * Takes a connection for a statement, a transaction or a session serving `signal`'s attempt (if any); resolves
   * with it and `give(broken)`, which hands it back once (destroys it when `broken`, or when the attempt was
   * abandoned while it was held).
   */
  take(signal: AbortSignal | undefined, onError?: () => void): Promise<{ connection: C; give(broken: boolean): void }>;
}

/** A connection that may report a broken socket as an `error` event (node-postgres). */
type Emitter = {
  on?(event: 'error', listener: () => void): unknown;
  off?(event: 'error', listener: () => void): unknown;
};

/** The {@link Leases} of one pool. */
export function leases<C>(
  acquire: () => Promise<C>,
  release: (connection: C, broken: boolean) => void,
  identity: (connection: C) => object = (connection) => connection as unknown as object,
): Leases<C> {
  /** Per connection, the abandon count when hilo first took it: lower than {@link abandoned}, it sat through one. */
  const takenAt = new WeakMap<object, number>();
  let abandoned = 0;
  const key = identity;

  async function acquireFresh(signal: AbortSignal | undefined): Promise<C> {
    // bounded: a pool hands out each idle connection once before it opens a new one
    for (let stale = 0; ; stale++) {
      const acquiring = acquire();
      // a connection that arrives after the attempt gave up on it goes straight back
      if (signal !== undefined)
        acquiring.then(
          (c) => signal.aborted && release(c, false),
          () => undefined,
        );
      const connection = await abortable(acquiring, signal, 'taking a connection from the pool');
      const at = takenAt.get(key(connection));
      if (at === undefined || at >= abandoned || stale >= 1000) {
        if (at === undefined) takenAt.set(key(connection), abandoned);
        return connection;
      }
      release(connection, true);
    }
  }

  return {
    async take(signal, onError) {
      const connection = await acquireFresh(signal);
      let given = false;
      let errored = false;
      // a connection held across awaits can break while nobody waits on it; drivers then emit `error` on it
      // (node-postgres does, even while a statement on it fails with the same error), which would crash the process
      // with nobody listening: listen while it is held, and destroy it when given back
      const emitter = connection as Emitter;
      const listener = () => {
        errored = true;
        onError?.();
      };
      emitter.on?.('error', listener);
      const give = (broken: boolean) => {
        if (given) return;
        given = true;
        signal?.removeEventListener('abort', onAbort);
        release(connection, broken || errored);
        // after release: the pool's own idle listener takes over (a destroyed connection may still report)
        setImmediate(() => emitter.off?.('error', listener));
      };
      const onAbort = () => {
        abandoned++;
        give(true);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      return { connection, give };
    },
  };
}

/**
 * Sessions for a pooled client: `run(work)` takes one connection from the pool and every statement the client
 * sends from inside `work` goes to it, so a reservation and the probes that verify it need one connection, not
 * one per statement. That matters where hilo shares the application's pool (TypeORM): transactions that
 * hold every other connection while they wait for keys cannot starve the second statement of a reservation.
 * A nested `run` joins the session it is in.
 */
export function pinnedSessions<C>(pool: Leases<C>): PinnedSessions<C> {
  const storage = new AsyncLocalStorage<PinnedConnection<C>>();
  const current = () => {
    const pinned = storage.getStore();
    return pinned?.connection === undefined ? undefined : pinned;
  };
  return {
    current,
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (current() !== undefined) return work();
      const signal = liveAttempt();
      // a connection that broke while held between statements: the next statement goes to the pool
      const holder: { pinned?: PinnedConnection<C> } = {};
      const { connection, give } = await pool.take(signal, () => {
        if (holder.pinned === undefined) return;
        holder.pinned.broken = true;
        holder.pinned.connection = undefined;
      });
      const pinned: PinnedConnection<C> = { connection, broken: false, signal };
      holder.pinned = pinned;
      try {
        return await storage.run(pinned, work);
      } finally {
        pinned.connection = undefined;
        give(pinned.broken);
      }
    },
  };
}

/** What {@link pooledClient} needs of a driver's pool. */
export interface PooledDriver<C> {
  /** Statements on one connection. */
  executor(connection: C): SqlExecutor;
  acquire(): Promise<C>;
  /** Returns a connection to the pool, or destroys it when `broken`. */
  release(connection: C, broken: boolean): void;
  /** Runs one statement without parameters on a connection (`begin`, `commit`, `rollback`). */
  run(connection: C, sql: string): Promise<unknown>;
  /** The statement that starts a transaction. */
  readonly begin: string;
  /** Whether an error means the connection is lost. */
  isBroken(error: unknown): boolean;
  /**
   * The object that stays the same for one connection each time the pool hands it out (mysql2's promise pool wraps
   * its connection anew each time); by default the connection itself.
   */
  identity?(connection: C): object;
}

/**
 * The statement, session and transaction parts of a client over a driver's pool: a statement inside a session
 * goes to the session's connection, and so does a transaction (which then leaves the connection to the session);
 * a connection found broken is destroyed, not returned to the pool, and so is one whose statement an attempt
 * abandoned (see {@link leases}).
 */
export function pooledClient<C>(driver: PooledDriver<C>): Pick<SqlClient, 'query' | 'session' | 'transaction'> {
  const pool = leases(driver.acquire, driver.release, driver.identity);
  const sessions = pinnedSessions(pool);
  return {
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const pinned = sessions.current();
      if (pinned !== undefined)
        return onPinned(pinned, (c) => driver.executor(c).query<Row>(sql, params), driver.isBroken);
      const signal = liveAttempt();
      const { connection, give } = await pool.take(signal);
      let broken = false;
      try {
        return await abortable(driver.executor(connection).query<Row>(sql, params), signal, 'running a statement');
      } catch (error) {
        broken = driver.isBroken(error);
        throw error;
      } finally {
        give(broken);
      }
    },
    session: (work) => sessions.run(work),
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const pinned = sessions.current();
      const signal = pinned?.signal ?? liveAttempt();
      let broken = false;
      const lease =
        pinned === undefined
          ? await pool.take(signal, () => {
              broken = true;
            })
          : undefined;
      const connection = pinned?.connection ?? lease!.connection;
      const step = <R>(running: Promise<R>) => abortable(running, signal, 'running a transaction');
      const executor = driver.executor(connection);
      try {
        await step(driver.run(connection, driver.begin));
        let result: T;
        try {
          result = await work({ query: (sql, params) => step(executor.query(sql, params)) });
        } catch (error) {
          await step(driver.run(connection, 'rollback')).catch(() => {
            broken = true;
          });
          throw error;
        }
        await step(driver.run(connection, 'commit'));
        return result;
      } catch (error) {
        if (driver.isBroken(error)) broken = true;
        throw error;
      } finally {
        // a session's connection goes back when the session ends
        if (pinned !== undefined && broken) {
          pinned.broken = true;
          pinned.connection = undefined;
        } else {
          lease?.give(broken);
        }
      }
    },
  };
}
