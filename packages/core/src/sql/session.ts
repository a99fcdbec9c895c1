import { AsyncLocalStorage } from 'node:async_hooks';
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
}

/** What {@link pinnedSessions} gives a client: the session now in effect, and a way to run one. */
export interface PinnedSessions<C> {
  /** The live pinned connection of the session this code runs in, if any. */
  current(): PinnedConnection<C> | undefined;
  /** Runs `work` with every statement of the client it starts (across `await`s) on one pooled connection. */
  run<T>(work: () => Promise<T>): Promise<T>;
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
    return await run(pinned.connection!);
  } catch (error) {
    if (isBroken(error)) {
      pinned.broken = true;
      pinned.connection = undefined;
    }
    throw error;
  }
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
  /**
   * A connection held between statements can break while nobody waits on it; drivers then emit `error` on it
   * (node-postgres), which would crash the process with no listener. Listen for the session's time: it marks
   * the connection broken, and the next statement goes to the pool.
   */
  type Emitter = {
    on?(event: 'error', listener: () => void): unknown;
    off?(event: 'error', listener: () => void): unknown;
  };
  const storage = new AsyncLocalStorage<PinnedConnection<C>>();
  const current = () => {
    const pinned = storage.getStore();
    return pinned?.connection === undefined ? undefined : pinned;
  };
  return {
    current,
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (current() !== undefined) return work();
      const connection = await acquire();
      const pinned: PinnedConnection<C> = { connection, broken: false };
      const onError = () => {
        pinned.broken = true;
        pinned.connection = undefined;
      };
      const emitter = connection as Emitter;
      emitter.on?.('error', onError);
      try {
        return await storage.run(pinned, work);
      } finally {
        pinned.connection = undefined;
        release(connection, pinned.broken);
        // after release: the pool's own idle listener takes over (a destroyed connection may still report)
        setImmediate(() => emitter.off?.('error', onError));
      }
    },
  };
}

/** What {@link pooledClient} needs of a driver's pool. */
export interface PooledDriver<C> {
  /** Statements on the pool, one pooled connection each. */
  readonly direct: SqlExecutor;
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
}

/**
 * The statement, session and transaction parts of a client over a driver's pool: a statement inside a session
 * goes to the session's connection, and so does a transaction (which then leaves the connection to the session);
 * a connection found broken is destroyed, not returned to the pool.
 */
export function pooledClient<C>(driver: PooledDriver<C>): Pick<SqlClient, 'query' | 'session' | 'transaction'> {
  const sessions = pinnedSessions(driver.acquire, driver.release);
  return {
    query<Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> {
      const pinned = sessions.current();
      return pinned === undefined
        ? driver.direct.query<Row>(sql, params)
        : onPinned(pinned, (c) => driver.executor(c).query<Row>(sql, params), driver.isBroken);
    },
    session: (work) => sessions.run(work),
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const pinned = sessions.current();
      const connection = pinned?.connection ?? (await driver.acquire());
      let broken = false;
      // a connection of its own, held across awaits: its driver may report a dead socket as an `error` event
      // (node-postgres does, even while a statement on it fails with the same error), which would crash the
      // process with nobody listening; a session listens for its own connection
      const emitter = connection as {
        on?(e: 'error', l: () => void): unknown;
        off?(e: 'error', l: () => void): unknown;
      };
      const onError = () => {
        broken = true;
      };
      if (pinned === undefined) emitter.on?.('error', onError);
      try {
        await driver.run(connection, driver.begin);
        let result: T;
        try {
          result = await work(driver.executor(connection));
        } catch (error) {
          await driver.run(connection, 'rollback').catch(() => {
            broken = true;
          });
          throw error;
        }
        await driver.run(connection, 'commit');
        return result;
      } catch (error) {
        if (driver.isBroken(error)) broken = true;
        throw error;
      } finally {
        // a session's connection goes back when the session ends
        if (pinned !== undefined && broken) {
          pinned.broken = true;
          pinned.connection = undefined;
        } else if (pinned === undefined) {
          driver.release(connection, broken);
          // after release: the pool's own idle listener takes over (a destroyed connection may still report)
          setImmediate(() => emitter.off?.('error', onError));
        }
      }
    },
  };
}
