import { codeOf } from '../../sql/dialect.js';
import { isTransientError } from '../../sql/driver-errors.js';
import type { PgPoolClientLike, PgPoolLike } from './client.js';
import { postgresDialect } from './dialect.js';
import { configurationErrors, sourceUnavailableErrors } from '../../error-messages.js';

/** One `host:port` of a libpq URL's host list. */
export interface PostgresHost {
  readonly host: string;
  readonly port: number;
}

/**
 * What a libpq connection URI with several hosts (`postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`)
 * asks for: the hosts in the order they are tried, which server is acceptable, and a single-host URL per host for
 * the driver. libpq tries the hosts in order and takes the first whose session fits `target_session_attrs`.
 */
export interface PostgresHostList {
  readonly hosts: readonly PostgresHost[];
  /**
   * `any`: the first host that accepts a connection; `read-write` / `primary`: the first that is not in recovery
   * and accepts writes. hilo reserves blocks, which are writes, so the read-only forms are refused.
   */
  readonly targetSessionAttrs: 'any' | 'read-write' | 'primary';
  /** The URL for host `i`: the same user, database and parameters, with `target_session_attrs` taken out. */
  urlFor(i: number): string;
}

/** The `target_session_attrs` values libpq knows that hilo cannot use: each picks a server that refuses writes. */
const READ_ONLY_ATTRS = new Set(['read-only', 'standby', 'prefer-standby']);

/** `scheme://userinfo@hosts/rest` of a PostgreSQL URL; the host list is everything up to the path or query. */
const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/i;

/** `[v6]:port`, `[v6]`, `host:port` or `host`. */
function parseHost(entry: string, url: string): PostgresHost {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d*))?$/.exec(entry);
  const host = match?.[1] ?? '';
  const port = match?.[2] === undefined || match[2] === '' ? 5432 : Number(match[2]);
  if (match === null || host === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw configurationErrors.invalidHostEntry(redactHosts(url), entry);
  }
  return { host, port };
}

/** The URL with its password masked, for messages (the WHATWG parser refuses a host list). */
function redactHosts(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

/**
 * Reads a PostgreSQL URL's host list and `target_session_attrs`. Returns `undefined` for a URL the driver takes as
 * it is: one host, and no `target_session_attrs` (or `any`).
 *
 * @throws HiLoConfigurationError for an empty host, a bad port, or a `target_session_attrs` that is not `any`,
 *   `read-write` or `primary` (the read-only forms would send hilo's reservations to a server that refuses them).
 */
export function parsePostgresHosts(url: string): PostgresHostList | undefined {
  const parts = URL_PARTS.exec(url);
  if (parts === null) return undefined;
  const [, scheme = '', userinfo, hostPart = '', rest = ''] = parts;
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const params = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));
  const asked = params.get('target_session_attrs') ?? 'any';
  if (READ_ONLY_ATTRS.has(asked)) {
    throw configurationErrors.readOnlyTargetSession(redactHosts(url), asked);
  }
  if (asked !== 'any' && asked !== 'read-write' && asked !== 'primary') {
    throw configurationErrors.unknownTargetSession(redactHosts(url), asked);
  }
  const entries = hostPart.split(',');
  if (entries.length < 2 && asked === 'any') return undefined;
  const hosts = entries.map((entry) => parseHost(entry, url));
  params.delete('target_session_attrs');
  const query = params.size > 0 ? `?${params.toString()}` : '';
  const user = userinfo === undefined ? '' : `${userinfo}@`;
  return {
    hosts,
    targetSessionAttrs: asked,
    urlFor: (i) => `${scheme}${user}${hosts[i]!.host}:${hosts[i]!.port}${path}${query}`,
  };
}

/** A `pg` pool as {@link multiHostPool} makes them: one per host. */
export type HostPool = PgPoolLike & { on(event: 'error', listener: () => void): unknown };

/**
 * A pooled `pg` connection: it emits `error` when its socket dies, and while it is checked out the pool does not
 * listen, so whoever holds it must (an `error` event nobody listens to ends the process).
 */
type Connection = PgPoolClientLike & {
  on?(event: 'error', listener: () => void): unknown;
  off?(event: 'error', listener: () => void): unknown;
};

/** Runs `work` on `connection` with a listener for its `error` event, removed once the pool listens again. */
async function guarded<T>(connection: Connection, work: () => Promise<T>): Promise<T> {
  const ignore = () => undefined; // the failed statement reports the same error
  connection.on?.('error', ignore);
  try {
    return await work();
  } finally {
    setImmediate(() => connection.off?.('error', ignore));
  }
}

/**
 * Whether an error says that the server this connection reached cannot take hilo's writes any more: it is read-only
 * (SQLSTATE 25006: a standby, or a primary demoted since), or the connection to it is gone.
 */
function meansAnotherServer(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  if (code === '25006') return true;
  // a deadlock, serialization failure or lock timeout is retried on the same server
  return !SAME_SERVER_RETRIES.has(code ?? '') && isTransientError(error, postgresDialect);
}

/** Retryable SQLSTATEs that say nothing about which server answered. */
const SAME_SERVER_RETRIES = new Set(['40001', '40P01', '55P03', '53300']);

/**
 * A pool over a host list, as libpq reads a multi-host URL: connections go to the first host (in the URL's order)
 * that fits `target_session_attrs`, checked on each new connection (`pg_is_in_recovery()` and
 * `transaction_read_only`). When that server stops fitting — its connections fail, or it answers read-only
 * (25006), as a primary demoted by a failover manager does — the next connection looks for the fitting host again.
 * The statement that met the change fails (retryably) and is not repeated here: the reservation that sent it is
 * retried by the engine, whose server check then sees the new server as a failover (DESIGN rule 7).
 *
 * @param open - makes `pg`'s pool for one host's URL.
 */
export function multiHostPool(list: PostgresHostList, open: (url: string) => HostPool): PgPoolLike {
  const pools: (HostPool | undefined)[] = list.hosts.map(() => undefined);
  /** Connections that were checked to fit (pg reuses the client object of a pooled connection). */
  const fitting = new WeakSet<PgPoolClientLike>();
  let current: number | undefined;
  let choosing: Promise<number> | undefined;

  const poolOf = (i: number): HostPool => (pools[i] ??= open(list.urlFor(i)));
  const where = (i: number) => `${list.hosts[i]!.host}:${list.hosts[i]!.port}`;

  /** Whether the server behind `connection` takes what hilo sends, as `target_session_attrs` asks. */
  async function fits(connection: PgPoolClientLike): Promise<string | undefined> {
    if (list.targetSessionAttrs === 'any') return undefined;
    const { rows } = await connection.query(
      "select pg_catalog.pg_is_in_recovery() as recovery, current_setting('transaction_read_only') as read_only",
    );
    const row = rows[0] as { recovery?: unknown; read_only?: unknown } | undefined;
    if (row?.recovery === true) return 'in recovery (a standby)';
    if (row?.read_only === 'on') return 'read-only (default_transaction_read_only)';
    return undefined;
  }

  /** Takes a connection from host `i`'s pool and checks it once; a connection that does not fit is destroyed. */
  async function take(i: number): Promise<{ connection?: Connection; refusal?: string }> {
    const connection: Connection = await poolOf(i).connect();
    if (fitting.has(connection)) return { connection };
    let refusal: string | undefined;
    try {
      refusal = await guarded(connection, () => fits(connection));
    } catch (error) {
      connection.release(true);
      throw error;
    }
    if (refusal !== undefined) {
      connection.release(true);
      return { refusal };
    }
    fitting.add(connection);
    return { connection };
  }

  /** The first host, in the URL's order, that fits; rejects retryably when none does now. */
  async function choose(): Promise<number> {
    const seen: string[] = [];
    for (const i of list.hosts.keys()) {
      try {
        const { connection, refusal } = await take(i);
        if (connection !== undefined) {
          connection.release();
          return i;
        }
        seen.push(`${where(i)} is ${refusal ?? 'unsuitable'}`);
      } catch (error) {
        seen.push(`${where(i)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    throw sourceUnavailableErrors.noWritableHost(list.targetSessionAttrs, seen);
  }

  async function chosen(): Promise<number> {
    if (current !== undefined) return current;
    choosing ??= choose().finally(() => {
      choosing = undefined;
    });
    current = await choosing;
    return current;
  }

  /** `connection` whose failures that mean "another server now" make the next connection choose again. */
  function watched(i: number, connection: Connection): Connection {
    return {
      // the holder's listener goes to the connection itself (hilo's sessions listen while they hold one)
      on: (event, listener) => connection.on?.(event, listener),
      off: (event, listener) => connection.off?.(event, listener),
      async query(text, values) {
        try {
          return await connection.query(text, values);
        } catch (error) {
          if (meansAnotherServer(error) && current === i) current = undefined;
          throw error;
        }
      },
      // a connection to a server that turned read-only is destroyed, not pooled again
      release: (destroy) => connection.release(destroy),
    };
  }

  async function connect(): Promise<Connection> {
    // two rounds: the server chosen may stop fitting between the choice and this connection (a failover)
    for (let round = 0; round < 2; round++) {
      const i = await chosen();
      let taken: Awaited<ReturnType<typeof take>>;
      try {
        taken = await take(i);
      } catch (error) {
        if (current === i) current = undefined;
        if (round > 0 || !meansAnotherServer(error)) throw error;
        continue;
      }
      if (taken.connection !== undefined) return watched(i, taken.connection);
      if (current === i) current = undefined;
    }
    throw sourceUnavailableErrors.hostStoppedAcceptingWrites(list.targetSessionAttrs);
  }

  return {
    connect,
    async query(text, values) {
      const connection = await connect();
      let destroy = false;
      try {
        return await guarded(connection, () => connection.query(text, values));
      } catch (error) {
        destroy = meansAnotherServer(error);
        throw error;
      } finally {
        connection.release(destroy || undefined);
      }
    },
    async end() {
      await Promise.all(pools.flatMap((pool) => (pool === undefined ? [] : [pool.end()])));
    },
  };
}
