import { HiLoError } from '../errors.js';
import { sleep, withTimeout } from './deadline.js';
import type { HiLoEvent } from './events.js';
import type { HiSource } from './types.js';

/** What the watch does to the generator's blocks. */
export interface ServerWatchHooks {
  /** Stop handing out the keys in memory (they are kept) until the server is confirmed. */
  park(): void;
  /** The server is the one the blocks were reserved on: hand the parked keys out again. */
  restore(): void;
  /** Another server: discard every block in memory or parked, and keep later keys above those reserved. */
  failover(from: string, to: string): void;
  emit(event: HiLoEvent): void;
}

/** The pause before a check asked for while another was finishing, at most (a shorter `serverCheckMs` wins). */
const RECHECK_MS = 250;

/** How a reservation's server compares with the one the blocks in memory came from. */
export type Observed = 'same' | 'retired';

/**
 * Knows which server the blocks in memory were reserved on (DESIGN rule 7) and notices when hilo is talking to
 * another one. It learns the server from each reservation (read in the reservation's own statement) and from
 * `source.server()`, which it calls every `intervalMs` and right after hilo's own connection failed.
 *
 * While a check is due after a failure (the server stopped answering, a reservation lost its connection), the
 * keys in memory are parked: not handed out until a server answers. The same server gives them back; another
 * one discards them. Keys handed out from a block the new server may not know about are thus bounded by the
 * time between the server going away and the first check that did not answer at once: at most `intervalMs` plus
 * {@link parkAfterMs} (a check that takes longer parks the keys while it goes on, as through a pooler that holds
 * it while the backend is gone), and only when the old server went silent without refusing connections.
 *
 * A server in recovery (a standby not promoted yet, a primary demoted during a switchover) is neither the known
 * server nor a failover: the source's check rejects retryably, and the keys stay parked until a server that takes
 * writes answers (issue #47).
 */
export class ServerWatch {
  /** The server the blocks in memory (and parked) were reserved on. */
  private known: string | undefined;
  /** Servers hilo left: unless the source says a server may return, their answers are never used. */
  private readonly retired = new Set<string>();
  /** How many times hilo found itself on another server. */
  failovers = 0;
  /** Whether the keys in memory are parked until a server answers. */
  parked = false;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  /** Aborted by `stop()`: aborts the check in flight and ends the pause of callers waiting in {@link confirm}. */
  private readonly closing = new AbortController();
  private stopped = false;
  /** The source answered a check without an identity (it cannot tell): reservations no longer ask. */
  private unknowable = false;
  /** A check asked for while one was finishing (a failed check suspects the server again): runs after a pause. */
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: HiSource,
    private readonly intervalMs: number | undefined,
    private readonly timeoutMs: number,
    private readonly hooks: ServerWatchHooks,
  ) {}

  /**
   * A reservation (or a check) reached `identity`; `since` is {@link failovers} when it was sent. Another server than
   * the known one is a failover, unless the request was sent before the last failover: then it is a late answer
   * (`retired`), from the server hilo left or one it cannot place, and its blocks must not be used. So is an answer
   * from a server hilo left, over a connection to it still open, unless the source says a server may return under
   * the same identity (`serverMayReturn`, MariaDB): then it is a failover again (a failback), and the floor rises
   * above every key reserved, so keys still only grow.
   */
  observe(identity: string, since: number = this.failovers): Observed {
    if (this.known === undefined) {
      this.known = identity;
      this.startTimer();
    } else if (identity !== this.known) {
      if (since !== this.failovers || (this.retired.has(identity) && this.source.serverMayReturn !== true))
        return 'retired';
      const from = this.known;
      this.retired.add(from);
      this.known = identity;
      this.parked = false;
      this.failovers++;
      this.hooks.failover(from, identity);
      return 'same';
    }
    if (this.parked) {
      this.parked = false;
      this.hooks.restore();
      this.hooks.emit({ type: 'server-confirmed', server: identity });
    }
    return 'same';
  }

  /**
   * hilo's own connection failed (a reservation or a check): park the keys in memory and look at the server
   * now. Nothing happens before the first server is known, or with a source that cannot tell servers apart.
   */
  suspect(error: unknown): void {
    if (this.known === undefined || this.stopped || this.source.server === undefined) return;
    if (!this.parked) {
      this.parked = true;
      this.hooks.park();
      this.hooks.emit({ type: 'server-unconfirmed', server: this.known, error });
    }
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
    if (this.source.server === undefined || this.known !== undefined || this.unknowable || this.stopped) return;
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
    const since = this.failovers;
    // a server that does not answer at once may be gone behind a pooler that holds the check (PgBouncer waits for a
    // backend to come back): the keys in memory wait from now on, while the check goes on (issue #47)
    const slow = setTimeout(() => this.slowAnswer(), this.parkAfterMs);
    let identity: string | undefined;
    try {
      identity = await withTimeout(
        this.timeoutMs,
        () => new Error(`the server did not answer within timeoutMs (${this.timeoutMs} ms)`),
        (signal) => server.call(this.source, signal),
        { parent: this.closing.signal },
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
    if (this.known === undefined || this.stopped || this.parked) return;
    this.parked = true;
    this.hooks.park();
    this.hooks.emit({
      type: 'server-unconfirmed',
      server: this.known,
      error: new Error(`the server did not answer a check within ${this.parkAfterMs} ms; the check goes on`),
    });
  }

  /** The source cannot say which server it reaches: parked keys go back, as nothing will ever confirm them. */
  private cannotTell(): void {
    this.unknowable = true;
    if (!this.parked) return;
    this.parked = false;
    this.hooks.restore();
  }

  /**
   * For a caller waiting for keys while they are parked: one check of the server, then, if that did not settle
   * it, a pause, so that waiting callers neither spin nor reserve block after block. `stop()` ends the pause at once.
   */
  async confirm(): Promise<void> {
    await this.check();
    if (this.parked && !this.stopped) await sleep(RECHECK_MS, this.closing.signal);
  }

  private startTimer(): void {
    if (this.intervalMs === undefined || this.timer !== undefined || this.source.server === undefined) return;
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the checks (the generator closes). */
  stop(): void {
    this.stopped = true;
    this.closing.abort(new Error('the generator closed'));
    clearInterval(this.timer);
    clearTimeout(this.recheck);
  }
}
