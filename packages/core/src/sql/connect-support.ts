import type { Socket } from 'node:net';
import { beforeDeadline } from '../engine/deadline.js';
import type { SqlClient } from './sql-client.js';
import { configurationErrors } from '../error-messages.js';

/** What {@link connect} hands each database's opener: the checked pool, timeout and close settings. */
export interface OpenSettings {
  readonly poolSize: number;
  readonly timeoutMs: number;
  readonly closeTimeoutMs: number;
}

/**
 * Resolves true when `work` settles (either way) within `ms`, false otherwise; `work` is never rejected
 * through it. How hilo bounds a close that a stuck connection would otherwise hold for ever.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(
    () => true,
    () => true,
  );
  return (await beforeDeadline(settled, performance.now() + ms)) === true;
}

/** The sockets a pool opened and has not closed yet, so that a stuck close can destroy them. */
export function socketTracker(): { readonly open: Set<Socket>; track(socket: Socket): Socket } {
  const open = new Set<Socket>();
  return {
    open,
    track(socket) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      return socket;
    },
  };
}

/**
 * `client` whose `sockets` keep the process alive only while a statement, transaction or session runs: unref'd
 * when the last one ends, ref'd when the next begins (a socket opened meanwhile starts ref'd). For drivers without
 * an `allowExitOnIdle` of their own, so that a connection hilo holds open never stops the process from exiting.
 */
export function refWhileBusy(client: SqlClient, sockets: Set<Socket>): SqlClient {
  let busy = 0;
  const around = async <T>(work: () => Promise<T>): Promise<T> => {
    if (busy++ === 0) for (const socket of sockets) socket.ref();
    try {
      return await work();
    } finally {
      if (--busy === 0) for (const socket of sockets) socket.unref();
    }
  };
  const wrapped: SqlClient = {
    ...client,
    query: (sql, params) => around(() => client.query(sql, params)),
    transaction: (work) => around(() => client.transaction(work)),
  };
  if (client.atomic) {
    const atomic = client.atomic.bind(client);
    wrapped.atomic = (sql, params) => around(() => atomic(sql, params));
  }
  if (client.session) {
    const session = client.session.bind(client);
    wrapped.session = (work) => around(() => session(work));
  }
  return wrapped;
}

/** `client` whose `close()` gives up waiting after `ms` and destroys the sockets its pool still has open. */
export function withBoundedClose(client: SqlClient, sockets: Set<Socket>, ms: number): SqlClient {
  return {
    ...client,
    async close() {
      const closing = client.close();
      if (await settlesWithin(closing, ms)) return;
      for (const socket of sockets) socket.destroy();
      await settlesWithin(closing, 1000);
    },
  };
}

/** `url` with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

/** Imports a driver, or says which package to install. */
export async function load<T>(specifier: string, url: string): Promise<T> {
  const loaded = await loadIfInstalled<T>(specifier);
  if (loaded.module !== undefined) return loaded.module;
  const name = specifier.split('/')[0]!;
  throw configurationErrors.driverNotInstalled(redactUrl(url), name, loaded.missing);
}

/** `specifier` imported, or (when it is not installed) the module-not-found error; other failures throw. */
export async function loadIfInstalled<T>(
  specifier: string,
): Promise<{ module: T; missing?: undefined } | { module?: undefined; missing: unknown }> {
  try {
    return { module: (await import(specifier)) as T };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || code === 'ERR_UNKNOWN_BUILTIN_MODULE')
      return { missing: error };
    throw error;
  }
}
