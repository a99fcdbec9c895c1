import { HiLoError } from '../errors.js';
import { sleep, withTimeout } from './deadline.js';
import { nextServerState, type Epoch, type ServerEvent, type ServerState } from './lifecycle.js';
import type { HiSource } from './types.js';

/**
 * What the watch tells the generator, at the transitions that reach its segments (see `SERVER_TRANSITIONS`).
 * The generator applies them to every segment (`SEGMENT_TRANSITIONS`: `park`, `confirm`, `failover`).
 */
export interface ServerListener {
  /** `known` → `unconfirmed`: stop handing out the keys in memory (they are kept) until the server is confirmed. */
  park(server: string, error: unknown): void;
  /**
   * `unconfirmed` → `known`: hand the parked keys out again; `answered` when the server they were reserved on
   * answered, `cannot-tell` when the source said it can never tell (nothing would ever confirm them).
   */
  confirm(server: string, how: 'answered' | 'cannot-tell'): void;
  /** A failover, `from` → `to`: the epoch went up; every key in memory or parked is discarded. */
  failover(from: string, to: string): void;
}

/** What a reservation and the peer check read from the watch and report to it. */
export interface ServerView {
  /** The failover epoch now (see {@link Epoch}). */
  readonly epoch: Epoch;
  /** Whether the server is unconfirmed: keys in memory are parked. */
  readonly unconfirmed: boolean;
  observe(identity: string, since: Epoch): Observed;
  suspect(error: unknown): void;
  unidentified(): void;
}

/** The pause before a check asked for while another was finishing, at most (a shorter `serverCheckMs` wins). */
const RECHECK_MS = 250;

/** How a reservation's server compares with the one the blocks in memory came from. */
export type Observed = 'same' | 'retired';

/**
 * Knows which server the blocks in memory were reserved on (DESIGN rule 7) and notices when hilo is talking to
 * another one. It learns the server from each reservation (read in the reservation's own statement) and from
 * `source.server()`, which it calls every `intervalMs` and right after hilo's own connection failed. Its states and
 * transitions are {@link ServerState} and `SERVER_TRANSITIONS` (lifecycle.ts); every change goes through `take()`.
 *
 * While a check is due after a failure (the server stopped answering, a reservation lost its connection), the
 * watch is `unconfirmed` and the keys in memory are parked: not handed out until a server answers. The same server
 * gives them back; another one discards them. Keys handed out from a block the new server may not know about are
 * thus bounded by the time between the server going away and the first check that did not answer at once: at most
 * `intervalMs` plus {@link parkAfterMs} (a check that takes longer parks the keys while it goes on, as through a
 * pooler that holds it while the backend is gone), and only when the old server went silent without refusing
 * connections.
 *
 * A server in recovery (a standby not promoted yet, a primary demoted during a switchover) is neither the known
 * server nor a failover: the source's check rejects retryably, and the keys stay parked until a server that takes
 * writes answers (issue #47).
 */
export class ServerWatch implements ServerView {
  /** Where the watch is (see {@link ServerState}); changed only by {@link take}. */
  state: ServerState = 'unknown';
  /** The server the blocks in memory (and parked) were reserved on; set from `known` on. */
  private known: string | undefined;
  /** Servers hilo left: unless the source says a server may return, their answers are never used. */
  private readonly retired = new Set<string>();
  /** The failover epoch: how many times hilo found itself on another server. */
  epoch: Epoch = 0;
  /** The source answered a check without an identity (it cannot tell): reservations no longer ask. */
  private checksCannotTell = false;
  // the scheduling of checks (not states: they decide when the watch looks, never what it concludes)
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  /** A check asked for while one was finishing (a failed check suspects the server again): runs after a pause. */
  private recheck: NodeJS.Timeout | undefined;
  /** Aborted by `stop()`: aborts the check in flight and ends the pause of callers waiting in {@link waitForServer}. */
  private readonly closing = new AbortController();

  constructor(
    private readonly source: HiSource,
    private readonly intervalMs: number | undefined,
    private readonly timeoutMs: number,
    private readonly listener: ServerListener,
  ) {}

  /** Whether the server is unconfirmed: the keys in memory are parked until a check answers. */
  get unconfirmed(): boolean {
    return this.state === 'unconfirmed';
  }

  private get stopped(): boolean {
    return this.state === 'stopped';
  }

  /** The one place the state changes: the table decides the next state, the caller does what the change means. */
  private take(event: ServerEvent): ServerState {
    const from = this.state;
    this.state = nextServerState(from, event);
    return from;
  }

  /**
   * A reservation (or a check) reached `identity`; `since` is the {@link epoch} when it was sent. Another server than
   * the known one is a failover, unless the request was sent before the last failover: then it is a late answer
   * (`retired`), from the server hilo left or one it cannot place, and its blocks must not be used. So is an answer
   * from a server hilo left, over a connection to it still open, unless the source says a server may return under
   * the same identity (`serverMayReturn`, MariaDB): then it is a failover again (a failback), and the floor rises
   * above every key reserved, so keys still only grow. After `stop()`, another server is always a late answer.
   */
  observe(identity: string, since: Epoch = this.epoch): Observed {
    if (this.state === 'unknown') {
      this.known = identity;
      this.take('same');
      this.startTimer();
      return 'same';
    }
    if (identity === this.known) {
      if (this.take('same') === 'unconfirmed') this.listener.confirm(identity, 'answered');
      return 'same';
    }
    const retired = this.retired.has(identity) && this.source.serverMayReturn !== true;
    if (this.stopped || since !== this.epoch || retired) {
      this.take('late');
      return 'retired';
    }
    const from = this.known!;
    this.retired.add(from);
    this.known = identity;
    this.take('other');
    this.epoch++;
    this.listener.failover(from, identity);
    return 'same';
  }

  /**
   * hilo's own connection failed (a reservation or a check): park the keys in memory and look at the server
   * now. Nothing happens before the first server is known, or with a source that cannot tell servers apart.
   */
  suspect(error: unknown): void {
    if (this.state === 'unknown' || this.stopped || this.source.server === undefined) return;
    if (this.take('suspect') === 'known') this.listener.park(this.known!, error);
    if (this.checking === undefined) {
      void this.check();
      return;
    }
    // a check is finishing (it may be the one that failed): look again after a pause, not never, and not in a
    // tight loop against a server that refuses at once
    if (this.recheck !== undefined) return;
    this.recheck = setTimeout(
      () => {
        this.recheck = undefined;
        if (!this.stopped) void this.check();
      },
      Math.min(this.intervalMs ?? RECHECK_MS, RECHECK_MS),
    );
    this.recheck.unref();
  }

  /**
   * A reservation reported no server (a source of your own that reads the identity only through `server()`): learn
   * the first server from a check, so that the periodic checks start.
   */
  unidentified(): void {
    if (this.source.server === undefined || this.state !== 'unknown' || this.checksCannotTell) return;
    void this.check();
  }

  /** Asks the source which server it reaches now (one check at a time). */
  check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    const server = this.source.server;
    if (server === undefined || this.stopped) return;
    const since = this.epoch;
    // a server that does not answer at once may be gone behind a pooler that holds the check (PgBouncer waits for a
    // backend to come back): the keys in memory wait from now on, while the check goes on (issue #47)
    const slow = setTimeout(() => this.slowAnswer(), this.parkAfterMs);
    // a check is background work: neither its timers nor its query keep the process alive (DESIGN rule 12)
    slow.unref();
    let identity: string | undefined;
    try {
      identity = await withTimeout(
        this.timeoutMs,
        () => new Error(`the server did not answer within timeoutMs (${this.timeoutMs} ms)`),
        (signal) => server.call(this.source, signal),
        { parent: this.closing.signal, unref: true },
      );
    } catch (error) {
      if (this.stopped) return;
      // only a failure that may be the server going away parks the keys; a refusal that stays (a bug, a
      // permission) would park them for good: the server cannot be told, as with a source without an identity
      if (!(error instanceof HiLoError) || error.retryable) this.suspect(error);
      else this.cannotTell();
      return;
    } finally {
      clearTimeout(slow);
    }
    if (identity === undefined) this.cannotTell();
    else if (!this.stopped) this.observe(identity, since);
  }

  /**
   * How long a check may take before the keys in memory are parked while it goes on: `serverCheckMs`, at most a
   * quarter of `timeoutMs`. A server that then answers as itself gives them back at once.
   */
  private get parkAfterMs(): number {
    return Math.min(this.intervalMs ?? this.timeoutMs, Math.ceil(this.timeoutMs / 4));
  }

  /** A check has not answered within {@link parkAfterMs}: park the keys in memory until it (or a later one) does. */
  private slowAnswer(): void {
    if (this.state !== 'known') return;
    this.take('suspect');
    this.listener.park(
      this.known!,
      new Error(`the server did not answer a check within ${this.parkAfterMs} ms; the check goes on`),
    );
  }

  /** The source cannot say which server it reaches: parked keys go back, as nothing will ever confirm them. */
  private cannotTell(): void {
    this.checksCannotTell = true;
    if (this.take('cannot-tell') === 'unconfirmed') this.listener.confirm(this.known!, 'cannot-tell');
  }

  /**
   * For a caller waiting for keys while they are parked: one check of the server, then, if that did not settle
   * it, a pause, so that waiting callers neither spin nor reserve block after block. `stop()` ends the pause at once.
   */
  async waitForServer(): Promise<void> {
    await this.check();
    if (this.unconfirmed) await sleep(RECHECK_MS, this.closing.signal);
  }

  private startTimer(): void {
    if (this.intervalMs === undefined || this.timer !== undefined || this.source.server === undefined) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the checks (the generator closes). */
  stop(): void {
    this.take('stop');
    this.closing.abort(new Error('the generator closed'));
    clearInterval(this.timer);
    clearTimeout(this.recheck);
  }
}
