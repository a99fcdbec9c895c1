/**
 * A fault-injection TCP proxy for tests: listens on loopback, forwards to a database, and does to the traffic
 * what cloud networks do — delay it, stall it (packets dropped and retransmitted later, no reset), cut live
 * connections, refuse new ones, or cut a connection right after the next statement reached the server (a
 * reservation whose outcome the client never learns). In-process, loopback only.
 */
import { createServer, Socket, type Server } from 'node:net';

/** What the proxy does to traffic now. */
export type FaultMode = 'pass' | 'delay' | 'stall' | 'blackhole' | 'refuse';

/** A running proxy. Switch modes at any time; each switch applies to live connections at once. */
export interface FaultProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's (`postgres://…@127.0.0.1:<port>/db`). */
  url(url: string): string;
  /** Current mode. */
  readonly mode: FaultMode;
  /** Connections accepted and still open. */
  readonly connections: number;
  /** Connections accepted since the proxy started, open or not. */
  readonly accepted: number;
  /**
   * Connections a blackhole killed that are still open (their client has not closed them): after `heal()` these
   * are the zombies, open on both ends and dead.
   */
  readonly zombies: number;
  /**
   * Forwards everything as it comes (the default). Data held by a stall is delivered in order. After a
   * `blackhole()`, only connections accepted from now on pass: the ones it swallowed stay dead.
   */
  heal(): void;
  /** Delays every chunk by `ms` in each direction, keeping the order (a round trip costs `2 × ms` more). */
  delay(ms: number): void;
  /**
   * Stops delivering in both directions without closing anything, like a link that drops packets: clients
   * wait until their own timeouts. New connections are accepted and stall too. `heal()` delivers what was
   * held, as TCP retransmission would.
   */
  stall(): void;
  /**
   * Drops everything on the live connections in both directions, for good, without closing anything: they are
   * dead on both ends and neither end is told (a NAT or load balancer that lost their state, a link down longer
   * than the peers' retransmissions). Unlike `stall()`, `heal()` revives none of them: they stay open and dead
   * ("zombies") until a peer closes them. Connections opened while it lasts stall, as a handshake whose packets
   * are retransmitted does, and go on once it heals; so do new ones after `heal()`.
   */
  blackhole(): void;
  /** New connections are reset at once (a stopped database's refused port); live ones go on. */
  refuse(): void;
  /** Resets every live connection, both sides, now. */
  cut(): void;
  /**
   * Lets `skip` statements through (on any connection), then resets the connection that sends the next one,
   * right after that statement reached the server and before any answer gets back: the server may commit
   * while the client sees a broken connection. Resolves when it happened.
   */
  cutAfterStatement(skip?: number): Promise<void>;
  /** Closes the proxy and every connection. */
  close(): Promise<void>;
}

interface Pipe {
  readonly client: Socket;
  readonly server: Socket;
  /** Chunks held while stalled, per direction, in order. */
  readonly held: { toServer: Buffer[]; toClient: Buffer[] };
  /** When the last delayed chunk of each direction is due, so later chunks never overtake it. */
  readonly due: { toServer: number; toClient: number };
  /** Chunks the client has sent: the first is its part of the handshake, later ones are statements. */
  sent: number;
  /** Swallowed by a blackhole: nothing passes either way any more, whatever the mode. */
  dead: boolean;
}

/**
 * Starts a proxy to `target` on a free loopback port.
 *
 * @example
 * ```ts
 * const proxy = await startFaultProxy(db.url);
 * const client = await connect(proxy.url(db.url));
 * proxy.stall(); // reservations now time out
 * proxy.heal();
 * ```
 */
export async function startFaultProxy(target: string | { host: string; port: number }): Promise<FaultProxy> {
  const to = typeof target === 'string' ? targetOf(target) : target;
  const pipes = new Set<Pipe>();
  let mode: FaultMode = 'pass';
  let delayMs = 0;
  let cutWaiters: (() => void)[] = [];
  let cutSkip = 0;
  let accepted = 0;

  function deliver(pipe: Pipe, direction: 'toServer' | 'toClient', chunk: Buffer): void {
    const out = direction === 'toServer' ? pipe.server : pipe.client;
    if (out.destroyed || pipe.dead) return;
    // a connection opened during a blackhole: its packets are retransmitted until the link heals
    if (mode === 'stall' || mode === 'blackhole') {
      pipe.held[direction].push(chunk);
      return;
    }
    if (mode === 'delay' && delayMs > 0) {
      const at = Math.max(Date.now() + delayMs, pipe.due[direction]);
      pipe.due[direction] = at;
      setTimeout(
        () => {
          if (!out.destroyed && !pipe.dead) out.write(chunk);
        },
        Math.max(0, at - Date.now()),
      ).unref?.();
      return;
    }
    out.write(chunk);
  }

  function reset(pipe: Pipe): void {
    pipes.delete(pipe);
    for (const socket of [pipe.client, pipe.server]) {
      if (!socket.destroyed) socket.resetAndDestroy();
    }
  }

  const server: Server = createServer((client) => {
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    accepted++;
    const upstream = new Socket();
    const pipe: Pipe = {
      client,
      server: upstream,
      held: { toServer: [], toClient: [] },
      due: { toServer: 0, toClient: 0 },
      sent: 0,
      dead: false,
    };
    pipes.add(pipe);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      pipe.sent++;
      // PostgreSQL: startup, then statements; MariaDB: greeting from the server, the client's login, then statements
      if (cutWaiters.length > 0 && mode !== 'stall' && !pipe.dead && pipe.sent >= 2 && cutSkip-- <= 0) {
        // the statement reaches the server; the connection dies before any answer comes back
        upstream.write(chunk, () => {
          reset(pipe);
          const waiters = cutWaiters;
          cutWaiters = [];
          for (const resolve of waiters) resolve();
        });
        upstream.pause();
        return;
      }
      deliver(pipe, 'toServer', chunk);
    });
    upstream.on('data', (chunk: Buffer) => deliver(pipe, 'toClient', chunk));
    const end = () => reset(pipe);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.connect(to.port, to.host);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address');
  const port = address.port;

  function release(): void {
    for (const pipe of pipes) {
      const { toServer, toClient } = pipe.held;
      if (pipe.dead) {
        toServer.length = 0;
        toClient.length = 0;
        continue;
      }
      for (const chunk of toServer.splice(0)) if (!pipe.server.destroyed) pipe.server.write(chunk);
      for (const chunk of toClient.splice(0)) if (!pipe.client.destroyed) pipe.client.write(chunk);
    }
  }

  return {
    port,
    url(url: string): string {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    get mode() {
      return mode;
    },
    get connections() {
      return pipes.size;
    },
    get accepted() {
      return accepted;
    },
    get zombies() {
      return [...pipes].filter((pipe) => pipe.dead).length;
    },
    heal() {
      mode = 'pass';
      delayMs = 0;
      release();
    },
    delay(ms: number) {
      mode = 'delay';
      delayMs = ms;
      release();
    },
    stall() {
      mode = 'stall';
    },
    blackhole() {
      mode = 'blackhole';
      for (const pipe of pipes) pipe.dead = true;
      release();
    },
    refuse() {
      mode = 'refuse';
    },
    cut() {
      for (const pipe of [...pipes]) reset(pipe);
    },
    cutAfterStatement(skip = 0) {
      cutSkip = skip;
      return new Promise<void>((resolve) => cutWaiters.push(resolve));
    },
    async close() {
      for (const pipe of [...pipes]) reset(pipe);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const defaultPort = parsed.protocol.startsWith('mysql') || parsed.protocol.startsWith('mariadb') ? 3306 : 5432;
  return {
    host: parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname,
    port: parsed.port === '' ? defaultPort : Number(parsed.port),
  };
}

/** A proxy per test, from {@link useFaultProxy}. */
export interface FaultProxyPerTest {
  /** The current test's proxy to the database. */
  readonly proxy: FaultProxy;
  /** Runs `cleanup` after the current test, once the proxy healed; cleanups run last registered first. */
  onCleanup(cleanup: () => Promise<unknown>): void;
}

/**
 * Starts a fault proxy to `db` before each test of the enclosing `describe`; after each test, heals it (so
 * held statements finish), runs the test's cleanups, last first, and closes it.
 */
export function useFaultProxy(db: { readonly url: string }): FaultProxyPerTest {
  let current: FaultProxy | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeEach(async () => {
    current = await startFaultProxy(db.url);
  });
  afterEach(async () => {
    current?.heal();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await current?.close();
  });
  return {
    get proxy() {
      if (!current) throw new Error('useFaultProxy(): the proxy exists inside a test only');
      return current;
    },
    onCleanup(cleanup) {
      cleanups.push(cleanup);
    },
  };
}

/**
 * Runs `rounds` rounds of `body`; before each, arms a cut after 0–3 statements (round by round), so that the
 * cut lands on BEGIN, the read, the update or the COMMIT of a reservation through the proxy. Resolves how
 * many cuts happened.
 */
export async function withReservationCuts(
  proxy: FaultProxy,
  rounds: number,
  body: (round: number) => Promise<void>,
): Promise<number> {
  let cuts = 0;
  for (let round = 0; round < rounds; round++) {
    const cut = proxy.cutAfterStatement(round % 4).then(() => cuts++);
    await body(round);
    await Promise.race([cut, new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  return cuts;
}

/** How long `work` took and what it threw (`undefined` when it resolved). */
export async function timed(work: () => Promise<unknown>): Promise<{ readonly ms: number; readonly error: unknown }> {
  const started = Date.now();
  try {
    await work();
    return { ms: Date.now() - started, error: undefined };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}
