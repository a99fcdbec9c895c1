/** Every code a {@link HiLoError} can carry. */
export type HiLoErrorCode =
  | 'HILO_CONFIGURATION'
  | 'HILO_NOT_READY'
  | 'HILO_SOURCE_UNAVAILABLE'
  | 'HILO_SOURCE_FAILED'
  | 'HILO_TIMEOUT'
  | 'HILO_OVERFLOW'
  | 'HILO_EXHAUSTED'
  | 'HILO_MISMATCH'
  | 'HILO_STORE_BEHIND'
  | 'HILO_KEY_LIMIT'
  | 'HILO_NO_SYNC_STANDBY'
  | 'HILO_SERVER_UNCONFIRMED'
  | 'HILO_CLOSED'
  | 'HILO_GRAPH_LOAD';

/**
 * How to fix an error, worded for each caller: `library` names the options code passes to hilo, `cli` the
 * commands and flags of the `hilo` CLI. An error's `message` ends with the library's wording; the CLI prints
 * {@link HiLoError.problem} followed by the CLI's, so no caller rewrites messages.
 */
export interface HiLoHint {
  /** The fix in terms of library options, e.g. "Run `hilo init orders` or pass `create: true`." */
  readonly library: string;
  /** The fix in terms of CLI commands and flags, e.g. "Run `hilo init orders`." */
  readonly cli: string;
}

/**
 * The hint for a hi table, row or sequence that does not exist: create it with `hilo init`, or let hilo
 * create it on first use (`create: true`). `segment` narrows the command to one segment.
 */
export function missingObjectHint(object: string, segment?: string): HiLoHint {
  const command = segment === undefined ? '`hilo init`' : `\`hilo init ${segment}\``;
  return {
    library: `Run ${command} or pass \`create: true\` to create ${object}.`,
    cli: `Run ${command} to create ${object}.`,
  };
}

/**
 * Base class of every error hilo throws. `code` tells the kind; `retryable` is true exactly when trying the same
 * call again can cure it (a lost connection, a timeout, a conflict another transaction won), false when only a
 * change can (a bad option, a missing table, a store behind its rows). The rule per code is in the hilo-core
 * README ("Errors").
 */
export class HiLoError extends Error {
  /** What kind of failure this is. */
  readonly code: HiLoErrorCode;
  /** Whether trying the same call again can cure it: the generator retries only these, within `retryBudgetMs`. */
  readonly retryable: boolean;
  /**
   * For a retryable error that only a short wait can cure: the longest time worth retrying it, in ms, which
   * caps the generator's `retryBudgetMs` (e.g. SQLite's write lock held by a transaction of this process,
   * which may be waiting for this very reservation).
   */
  readonly retryWithinMs: number | undefined;
  /** How to fix it, worded for library callers and for the CLI; `undefined` when the message says it all. */
  readonly hint: HiLoHint | undefined;

  constructor(
    code: HiLoErrorCode,
    message: string,
    options?: { cause?: unknown; retryable?: boolean; retryWithinMs?: number; hint?: HiLoHint },
  ) {
    const hint = options?.hint;
    super(
      hint === undefined ? message : `${message} ${hint.library}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.code = code;
    this.retryable = options?.retryable ?? false;
    this.retryWithinMs = options?.retryWithinMs;
    this.hint = hint;
  }

  /** What went wrong, without the fix: `message` is this followed by `hint.library` when there is a hint. */
  get problem(): string {
    const fix = this.hint === undefined ? undefined : ` ${this.hint.library}`;
    return fix !== undefined && this.message.endsWith(fix) ? this.message.slice(0, -fix.length) : this.message;
  }
}

/** An option, segment name or identifier is invalid. The message names the value and the fix. */
export class HiLoConfigurationError extends HiLoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HILO_CONFIGURATION', message, options);
  }

  /** `Expected \`name\` to be …, got …`. */
  static invalidOption(name: string, expected: string, got: unknown): HiLoConfigurationError {
    return new HiLoConfigurationError(`Expected \`${name}\` to be ${expected}, got ${describe(got)}.`);
  }

  /**
   * Refuses option names `where` does not know (a typo would otherwise be ignored) and `null` values (which
   * would otherwise mean "the default" without a word).
   */
  static checkOptionNames(options: object, known: ReadonlySet<string>, where: string): void {
    for (const [key, value] of Object.entries(options)) {
      if (!known.has(key)) {
        throw new HiLoConfigurationError(
          `Unknown option \`${key}\` for ${where}; expected one of ${[...known].map((k) => `\`${k}\``).join(', ')}.`,
        );
      }
      if (value === null) {
        throw new HiLoConfigurationError(
          `Expected \`${key}\` to be set or left out (for its default), got null; ${where} does not read null as the default.`,
        );
      }
    }
  }
}

/**
 * `nextSync()` found no key in memory. A reservation has been started; call `await next()` instead, or
 * `await generator.warm([...])` at start-up so that `nextSync()` is served from memory.
 */
export class HiLoNotReadyError extends HiLoError {
  /** The segment that had no key in memory. */
  readonly segment: string;
  constructor(segment: string) {
    super(
      'HILO_NOT_READY',
      `No key for segment "${segment}" is in memory yet; a block is being reserved. Use \`await next("${segment}")\`, ` +
        `or call \`await generator.warm(["${segment}"])\` at start-up.`,
      { retryable: true },
    );
    this.segment = segment;
  }
}

/** The database behind a hi source could not be reached or dropped the connection. Retried by the generator. */
export class HiLoSourceUnavailableError extends HiLoError {
  constructor(message: string, options?: { cause?: unknown; retryWithinMs?: number }) {
    super('HILO_SOURCE_UNAVAILABLE', message, { ...options, retryable: true });
  }
}

/**
 * The hi source failed. Not retryable by default: a missing table, a missing permission or a source set up wrong
 * fail the same way again. The thrower sets `retryable` when a retry can cure it: a conflict another transaction
 * won (`conflict`), a lock another process held for a while, an error of a source of your own that says nothing
 * about why (its outcome is unknown), or blocks hilo itself discarded after a failover (reserved again on the new
 * server).
 */
export class HiLoSourceError extends HiLoError {
  /**
   * The server answered and turned this attempt down because a concurrent transaction won (a deadlock, a Galera
   * certification conflict): retryable, and no sign that the server went away, so the keys in hand stay in use.
   */
  readonly conflict: boolean;
  constructor(
    message: string,
    options?: { cause?: unknown; retryable?: boolean; hint?: HiLoHint; conflict?: boolean },
  ) {
    const conflict = options?.conflict === true;
    super('HILO_SOURCE_FAILED', message, {
      ...(options?.cause === undefined ? {} : { cause: options.cause }),
      ...(options?.hint === undefined ? {} : { hint: options.hint }),
      retryable: conflict || options?.retryable === true,
    });
    this.conflict = conflict;
  }
}

/** A reservation did not finish within `timeoutMs`. Its block, if the database granted one, is discarded. */
export class HiLoTimeoutError extends HiLoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HILO_TIMEOUT', message, { ...options, retryable: true });
  }
}

/** A key would exceed `Number.MAX_SAFE_INTEGER` in `keyType: 'number'` mode. Use `keyType: 'bigint'`. */
export class HiLoOverflowError extends HiLoError {
  constructor(message: string) {
    super('HILO_OVERFLOW', message);
  }
}

/** Reservations kept failing after every retry. `cause` holds the last failure. */
export class HiLoExhaustedError extends HiLoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HILO_EXHAUSTED', message, options);
  }
}

/**
 * Where a store shared with another system showed the mismatch: a key that system stored inside a block hilo
 * read from the shared store (see {@link HiLoMismatchError.overlap}).
 */
export interface MismatchOverlap {
  /** The segment that was refused. */
  readonly segment: string;
  /** The table holding the stored key, as it was configured (e.g. `orders`). */
  readonly table: string;
  /** Its key column. */
  readonly column: string;
  /** The block hilo read from the shared store (or held), discarded with every other block of the segment. */
  readonly block: { readonly first: bigint; readonly last: bigint };
  /** The key the other system stored at or above the block's first key, or inside it. */
  readonly storedKey: bigint;
}

/**
 * What {@link HiLoMismatchError.claim} reports: a key column the store records for one segment, claimed by another
 * (DESIGN rule 13, "one column, one segment").
 */
export interface ColumnClaim {
  /** The column as the store records it: `schema.table.column` (`table.column` on SQLite). */
  readonly column: string;
  /** The segment the store records for the column. */
  readonly keyedBy: string;
  /** The segment of this process that claimed it too. */
  readonly claimedBy: string;
}

/**
 * The database's hi/lo objects disagree with the configuration (a sequence's INCREMENT BY is not the
 * configured block size, a shared table's value no value of the configured increment, a key the other system
 * stored inside a block read from the shared store, a key column the store records for another segment, …).
 * Continuing could hand out duplicate keys, so hilo refuses.
 */
export class HiLoMismatchError extends HiLoError {
  /** When the mismatch showed as a key stored inside a block: where (`undefined` for a shape or value check). */
  readonly overlap: MismatchOverlap | undefined;
  /** When a segment claimed a key column the store records for another segment: which (`undefined` otherwise). */
  readonly claim: ColumnClaim | undefined;
  constructor(message: string, overlap?: MismatchOverlap, claim?: ColumnClaim) {
    super('HILO_MISMATCH', message);
    this.overlap = overlap;
    this.claim = claim;
  }
}

/** What {@link HiLoStoreBehindError} reports: where the stored key was found and the block it collided with. */
export interface StoreBehindDetails {
  /** The segment whose hi store is behind its stored keys. */
  readonly segment: string;
  /** The table holding the stored key, as it was configured (e.g. `orders`). */
  readonly table: string;
  /** Its key column (e.g. `id`). */
  readonly column: string;
  /** The block the hi store handed out, which was discarded: none of its keys was handed out. */
  readonly block: { readonly first: bigint; readonly last: bigint };
  /** The stored key that proved the store behind: the largest stored key, or the largest one inside `block`. */
  readonly storedKey: bigint;
  /** The hi source's description, e.g. `postgres sequence per segment (pooled-lo, increment 100)`. */
  readonly source: string;
  /** The `hilo floor` source kind to name in the CLI fix (`sequence` or `table`), when the source has one. */
  readonly kind?: string | undefined;
  /** Why the floor was not lifted automatically, when `onStoreBehind: 'lift'` could not do it. */
  readonly liftFailed?: string | undefined;
  /** What the fix's `hilo floor --from` names, when not `table.column` (a segment checked across tenants). */
  readonly floorFrom?: string | undefined;
}

/**
 * The hi store fell behind the rows: a block it handed out holds a key a row already has (a sequence dropped or
 * restarted, a hi row deleted or set back, a restore from an older dump, rows copied without the sequence
 * positions, a peer set up differently). The block was discarded before any key of it was handed out. Never
 * retried: fix it with `hilo floor`, or let hilo do it with `onStoreBehind: 'lift'`.
 */
export class HiLoStoreBehindError extends HiLoError {
  /** The segment whose hi store is behind. */
  readonly segment: string;
  /** The table holding the stored key. */
  readonly table: string;
  /** Its key column. */
  readonly column: string;
  /** The discarded block. */
  readonly block: { readonly first: bigint; readonly last: bigint };
  /** The stored key found at or above the block's first key. */
  readonly storedKey: bigint;

  constructor(details: StoreBehindDetails) {
    const { segment, table, column, block, storedKey } = details;
    const where = `${table}.${column}`;
    const kind = details.kind === 'sequence' || details.kind === 'table' ? ` --source ${details.kind}` : '';
    const command = `hilo floor --url <URL>${kind} ${segment} --from ${details.floorFrom ?? where}`;
    const lift = details.liftFailed === undefined ? '' : ` It could not be lifted automatically: ${details.liftFailed}`;
    super(
      'HILO_STORE_BEHIND',
      `The hi store of segment "${segment}" (${details.source}) is behind its stored keys: it handed out the ` +
        `block ${block.first}…${block.last}, but ${where} already holds key ${storedKey}. The block was discarded ` +
        `and no key of it was handed out.${lift}`,
      {
        hint: {
          library:
            `Run \`${command}\` to move the store above the stored keys, or pass \`onStoreBehind: 'lift'\` ` +
            `to let hilo do it (never backwards).`,
          cli: `Run \`${command}\` to move the store above the stored keys.`,
        },
      },
    );
    this.segment = segment;
    this.table = table;
    this.column = column;
    this.block = block;
    this.storedKey = storedKey;
  }
}

/**
 * `synchronousStandby: true` asks for reservations that count only once a synchronous standby has them, and the
 * server cannot give that now: it lists no synchronous standby (`synchronous_standby_names` is empty), none is
 * connected, or one did not confirm a reservation in time (a standby cut off: an earlier reservation is still
 * waiting). Retryable when a wait can cure it: a standby coming back, or a failover manager listing one (an empty
 * `synchronous_standby_names` is taken as that; callers get the error only after waiting `timeoutMs`).
 */
export class HiLoSynchronousStandbyError extends HiLoError {
  constructor(problem: string, options?: { retryable?: boolean; cause?: unknown }) {
    super(
      'HILO_NO_SYNC_STANDBY',
      `\`synchronousStandby: true\` needs a synchronous standby that confirms every reservation, but ${problem}`,
      {
        ...options,
        hint: {
          library:
            'Make a standby synchronous on the primary (`synchronous_standby_names`, with the standby streaming; ' +
            '`pg_stat_replication.sync_state` shows `sync` or `quorum`), or remove `synchronousStandby` to accept ' +
            'asynchronous replication (see "Failover" in the hilo-core README).',
          cli: 'Make a standby synchronous on the primary (`synchronous_standby_names`), with the standby streaming.',
        },
      },
    );
  }
}

/**
 * A server check reached a server that cannot say yet whether the keys in memory are its own: one in recovery (a
 * standby not promoted yet, a primary demoted during a switchover). Retryable: the keys stay held back and the check
 * asks again after a pause; only an answer from a server that takes writes decides (issue #47). Internal to the
 * server check; callers never get it.
 */
export class HiLoServerUnconfirmedError extends HiLoError {
  constructor(message: string) {
    super('HILO_SERVER_UNCONFIRMED', message, { retryable: true });
  }
}

/** A key past the segment's `maxKey` (the largest key its column holds) would be handed out; hilo refuses. */
export class HiLoKeyLimitError extends HiLoError {
  /** The segment that ran out of keys. */
  readonly segment: string;
  /** Its `maxKey`. */
  readonly maxKey: bigint;
  constructor(segment: string, maxKey: bigint, first: bigint) {
    super(
      'HILO_KEY_LIMIT',
      `Segment "${segment}" reached its maxKey ${maxKey}: the next key would be ${first}, which its key column ` +
        `cannot hold. Widen the key column (e.g. int → bigint) and raise \`maxKey\`.`,
    );
    this.segment = segment;
    this.maxKey = maxKey;
  }
}

/** The generator was closed; create a new one. */
export class HiLoClosedError extends HiLoError {
  constructor() {
    super('HILO_CLOSED', 'This hi/lo generator was closed; create a new one to get more keys.');
  }
}

/** Where a graph load failed: the table, the input item and the row's key, as far as they are known. */
export interface GraphLoadFailure {
  /** The table being written (or whose constraint the server named). */
  readonly table: string | undefined;
  /** The 0-based index of the input item (root object) the failing row came from. */
  readonly item: number | undefined;
  /** The key hilo had given the failing row. */
  readonly key: number | bigint | undefined;
  /** The column the server or the encoder named. */
  readonly column: string | undefined;
}

/**
 * A graph load failed and rolled back: nothing of it was written, and the keys it had reserved count as lost. The
 * message names the table, the input item and the row's key, and the server's words (in `cause` too). `retryable`
 * when the database error is transient (a lost connection, a deadlock): loading the same input again may succeed.
 */
export class HiLoGraphLoadError extends HiLoError {
  /** The table being written, when known. */
  readonly table: string | undefined;
  /** The 0-based index of the input item whose row failed, when known. */
  readonly item: number | undefined;
  /** The key of the failing row, when known. */
  readonly key: number | bigint | undefined;
  /** The column named, when known. */
  readonly column: string | undefined;
  constructor(failure: GraphLoadFailure, message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super('HILO_GRAPH_LOAD', message, options);
    this.table = failure.table;
    this.item = failure.item;
    this.key = failure.key;
    this.column = failure.column;
  }
}

/** Short, printable rendering of any value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
