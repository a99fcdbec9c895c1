import { checkInteger, MAX_BLOCK_SIZE } from './checks.js';
import { HiLoConfigurationError } from '../errors.js';
import { validateSegment as checkSegment } from './segment-name.js';
import type { HiSource, KeyType, StoredKeys } from './types.js';
import type { HiLoEvent } from './events.js';
import { configurationErrors } from '../error-messages.js';

/** Per-segment settings that override the generator's. */
export interface SegmentOptions {
  /**
   * Keys reserved per round trip at first, and the smallest block adaptive sizing goes down to.
   * @default the generator's `blockSize`
   */
  blockSize?: number;
  /**
   * The largest block adaptive sizing may reserve.
   * @default the generator's `maxBlockSize`
   */
  maxBlockSize?: number;
  /**
   * The largest key this segment's key column holds.
   * @default the generator's `maxKey`
   */
  maxKey?: number | bigint;
}

/** How string ids from `nextFullId()` look: `orders/10-A` (RavenDB's format). */
export interface IdFormat {
  /**
   * Between the prefix and the number. Any non-empty string without `|` or digits.
   * @default "/"
   */
  separator?: string;
  /**
   * Appended after a dash, naming the node that made the id (`orders/10-A`). Letters and digits only.
   * @default none (`orders/10`)
   */
  nodeTag?: string;
  /**
   * The prefix for a segment.
   * @default the segment name
   */
  prefix?: (segment: string) => string;
}

/** Options of {@link createHiLoGenerator}. */
export interface HiLoGeneratorOptions<K extends KeyType = 'number'> {
  /** Reserves blocks in the database (`sequenceSource`, `tableSource`, `memorySource`, …). */
  source: HiSource;
  /**
   * Keys reserved per round trip at first, and the smallest block adaptive sizing goes down to. For a
   * sequence source this must equal the sequence's INCREMENT BY.
   * @default 100
   * @example
   * ```ts
   * createHiLoGenerator({ source, blockSize: 1000 })
   * ```
   */
  blockSize?: number;
  /**
   * The largest block adaptive sizing may reserve in one round trip.
   * @default 1_048_576 (never less than `blockSize`)
   */
  maxBlockSize?: number;
  /**
   * Size blocks from the observed consumption rate, so that one block lasts about `targetMs`
   * (grows at most ×8 and shrinks at most ÷2 per reservation, within `blockSize`…`maxBlockSize`).
   * `false` reserves exactly `blockSize` keys each time (except for bulk `reserve()` calls), with no
   * `firstBlockSize` ramp.
   * @default true (targetMs 5000)
   */
  adaptive?: boolean | { targetMs: number };
  /**
   * Keys a segment's first on-demand reservation asks for, sized for a process that lives for one request, job or
   * script (DESIGN rule 12): each later reservation asks for four times more until `blockSize` is reached, and
   * adaptive sizing takes over from there. `warm()` and callers waiting for more keys (`ensure()`, `reserve()`)
   * still get what they ask for at once. A source whose block size is fixed (a sequence's INCREMENT BY, a shared
   * store's increment) rounds each request up to it, so there the first block is the fixed one; the table
   * source takes any size. Part of adaptive sizing: with `adaptive: false`, or equal to `blockSize`, every
   * reservation asks for `blockSize` from the start.
   * @default 4 (never more than `blockSize`)
   * @example
   * ```ts
   * createHiLoGenerator({ source, firstBlockSize: 100 }) // a long-lived server that wants full blocks at once
   * ```
   */
  firstBlockSize?: number;
  /**
   * Fraction of the block in hand after which the next block is reserved in the background, so that no
   * caller waits at a block boundary. `0` reserves the next block as soon as the first key of a block is handed
   * out, so that a whole block stands by beyond the one in hand: for callers that cannot wait at all (Drizzle's
   * `$defaultFn`). A block of the start-up ramp (`firstBlockSize`, for a process that writes a few rows) still
   * prefetches at 0.8, so such a process reserves one small block; `warm()` asks for a full block at once. `false`
   * reserves only when the block is empty.
   * @default 0.8 (`0` for hilo-drizzle)
   * @example
   * ```ts
   * createHiLoGenerator({ source, prefetchAt: 0 }) // a standby block always in hand: nextSync() never waits on one
   * ```
   */
  prefetchAt?: number | false;
  /**
   * `'number'` hands out JavaScript numbers and fails with `HiLoOverflowError` rather than give a key above
   * `Number.MAX_SAFE_INTEGER`; `'bigint'` hands out bigints.
   * @default "number"
   */
  keyType?: K;
  /**
   * Time one reservation attempt may take before it is abandoned (and its block, if any, discarded). Counted in
   * time this process could run: a stretch in which the process itself did not run (a long synchronous task, a
   * garbage collection, a starved or stopped process) is charged at most twice a tenth of `timeoutMs`, so an
   * answer that waited unread meanwhile is still taken; the attempt still ends after about ten such stretches.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * How long an awaited reservation keeps retrying after a retryable failure (a refused or dropped
   * connection, a timeout, a database restarting) before callers get `HiLoExhaustedError`, counted from its
   * first attempt. The default rides out a typical PostgreSQL/MariaDB restart or a managed database's
   * failover of a few seconds. `warm()` never retries, so start-up still fails fast. Errors that retrying
   * cannot cure (a missing table, a mismatch) are never retried.
   * @default 10000
   * @example
   * ```ts
   * createHiLoGenerator({ source, retryBudgetMs: 30_000 }) // a failover that takes up to 30 s
   * ```
   */
  retryBudgetMs?: number;
  /**
   * The longest `close()` takes. Close waits for reservations in flight and gives back unused keys where the
   * source can prove it is safe; on a stalled or lost connection it stops waiting after this time, counts
   * what it could not give back as lost (gaps, never duplicates) and returns.
   * @default 5000
   */
  closeTimeoutMs?: number;
  /**
   * At most this many retries of one reservation, even with budget left (exponential backoff with full
   * jitter between them).
   * @default no limit but `retryBudgetMs`
   */
  retries?: number;
  /**
   * First backoff delay; doubles per attempt, up to `retryMaxDelayMs`; each wait is random in [0, delay].
   * @default 50
   */
  retryBaseDelayMs?: number;
  /**
   * Longest backoff delay.
   * @default 2000
   */
  retryMaxDelayMs?: number;
  /**
   * The largest key the key columns hold (an `int` column: `2_147_483_647`). `stats()` reports how much of it
   * each segment has used (`keyspaceUsed`), and the generator warns once per segment (a `headroom` event and
   * a process warning `HILO_HEADROOM`) when a reserved block passes 90 % of it, long before inserts fail.
   * Keys past it are never handed out: once the keys up to it are used, the segment fails with
   * `HiLoKeyLimitError`.
   * @default Number.MAX_SAFE_INTEGER for number keys, 2^63 − 1 (bigint's column maximum) for bigint keys
   * @example
   * ```ts
   * createHiLoGenerator({ source, maxKey: 2_147_483_647, segments: { events: { maxKey: 2n ** 63n - 1n } } })
   * ```
   */
  maxKey?: number | bigint;
  /**
   * Where each segment's keys are stored, so that every block is checked against them before its first key is
   * handed out (see "Verified blocks" in the README): at a segment's first reservation (and in `warm()`), the
   * largest stored key is read before the store and must be below the new block; every block must hold no
   * stored key. A store found behind is `HiLoStoreBehindError`, or lifted (`onStoreBehind`).
   * @default none (blocks are not checked)
   * @example
   * ```ts
   * createHiLoGenerator({ source, storedKeys: sqlStoredKeys(client, [{ segment: 'orders', table: 'orders', column: 'id' }]) })
   * ```
   */
  storedKeys?: StoredKeys;
  /**
   * What a store found behind its stored keys (`storedKeys`) does: `'error'` rejects with
   * `HiLoStoreBehindError`, naming the `hilo floor` command that fixes it; `'lift'` moves the store above the
   * largest stored key (never backwards, through the source's `raiseAbove`), emits a `floor-lifted` event and
   * a process warning `HILO_FLOOR_LIFTED`, and reserves again. `'lift'` is refused with an interop preset's
   * `storedKeys` (`sharedWith`): there an overlap is a `HiLoMismatchError`, a setting to fix, not a floor.
   * @default 'error'
   * @example
   * ```ts
   * createHiLoGenerator({ source, storedKeys, onStoreBehind: 'lift' })
   * ```
   */
  onStoreBehind?: 'error' | 'lift';
  /**
   * How often, in ms, hilo asks the database which server it is (PostgreSQL: system identifier, WAL timeline
   * and postmaster start time; MariaDB/MySQL: `@@server_id`; one small query per generator, never per key), so
   * that blocks reserved on a
   * server that is gone are not handed out from another one (a standby promoted after it missed the last
   * reservations): see "Failover" in the README. The same identity is read with every reservation and right
   * after hilo's own connection fails; until a server answers again, the keys in memory are not handed out. The
   * interval bounds how long keys are handed out after the server stopped answering: `serverCheckMs` plus the
   * lesser of `serverCheckMs` and a quarter of `timeoutMs` (a check that does not answer by then parks the keys
   * while it goes on, as through PgBouncer when the backend is gone). `false` checks only with reservations and
   * after connection errors. Sources that cannot tell servers apart (SQLite, memory, a role that may not read the
   * identity) are never checked. On MariaDB, a server hilo left that answers again (a failback) is a failover
   * again: each one discards the keys in memory and raises the store above every key reserved.
   * @default 1000
   * @example
   * ```ts
   * createHiLoGenerator({ source, serverCheckMs: 250 })
   * ```
   */
  serverCheckMs?: number | false;
  /**
   * With an interop preset's `storedKeys` (a hi store shared with another system, `storedKeys.sharedWith`): how
   * often, in ms, hilo probes the blocks it holds between reservations, with the check each reservation runs
   * first (a stored key among the keys it has not handed out, or more keys of a block stored than it handed out
   * of it, is the other system's). A system set up differently that writes into a block hilo holds is then
   * refused within one interval (plus one probe) of its write, as the reservation would refuse it: the same
   * `HiLoMismatchError`, the keys in hand lost with reason `mismatch`. So the keys hilo hands out after the other
   * system's first key there are at most those of one interval, not up to a block's. Never per key: one round of
   * probes (per segment holding keys never handed out: one `max` and one `count` range probe per table and block
   * in hand) on an unref'd timer, one at a time, stopped by `close()`, which runs one last round over the blocks
   * held since the previous one (blocks used up included) and rejects with the mismatch error if a segment was
   * refused; a probe that fails is unknown, not a refusal. `false` probes only at reservations (and not at
   * `close()`). Refused without a shared store, where nothing would be probed.
   * @default 1000
   * @example
   * ```ts
   * createHiLoGenerator({ ...nhibernatePreset(client, { storedKeys }), peerCheckMs: 250 })
   * ```
   */
  peerCheckMs?: number | false;
  /**
   * Settings for single segments, e.g. `{ orders: { blockSize: 1000 } }`.
   * @default {}
   */
  segments?: Record<string, SegmentOptions>;
  /**
   * How `nextFullId()` formats ids.
   * @default { separator: "/" }
   */
  idFormat?: IdFormat;
  /**
   * Called for every reservation, retry, failure, returned or lost range and block-size change. Must not
   * throw; it runs synchronously on the generator's path.
   * @default none
   */
  onEvent?: (event: HiLoEvent) => void;
}

/** Validated options with defaults applied. */
export interface ResolvedOptions {
  readonly source: HiSource;
  readonly blockSize: number;
  readonly maxBlockSize: number;
  readonly adaptiveTargetMs: number | undefined;
  readonly firstBlockSize: number;
  readonly prefetchAt: number | undefined;
  readonly keyType: KeyType;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryBudgetMs: number;
  readonly closeTimeoutMs: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly maxKey: bigint;
  readonly segments: Readonly<Record<string, { blockSize: number; maxBlockSize: number; maxKey: bigint }>>;
  readonly separator: string;
  readonly nodeTag: string | undefined;
  readonly prefix: (segment: string) => string;
  readonly onEvent: ((event: HiLoEvent) => void) | undefined;
  readonly storedKeys: StoredKeys | undefined;
  readonly onStoreBehind: 'error' | 'lift';
  readonly serverCheckMs: number | undefined;
  readonly peerCheckMs: number | undefined;
}

function keyLimit(name: string, value: unknown): bigint {
  if (
    (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) ||
    (typeof value === 'bigint' && value >= 1n)
  )
    return BigInt(value);
  throw HiLoConfigurationError.invalidOption(
    name,
    'a positive integer (number or bigint), e.g. 2_147_483_647 for an int column',
    value,
  );
}

/**
 * `onEvent` whose throw is reported as the handler's (a typed error naming it and the event), never mistaken for a
 * failure of the database or retried as one.
 */
function namedHandler(handler: (event: HiLoEvent) => void): (event: HiLoEvent) => void {
  return (event) => {
    try {
      handler(event);
    } catch (error) {
      throw configurationErrors.onEventThrew(event.type, error);
    }
  };
}

/**
 * The fraction of a block after which the next one is reserved by default; also what a block of the start-up ramp
 * uses under `prefetchAt: 0` (see `Segment`).
 */
export const DEFAULT_PREFETCH_AT = 0.8;

/** The option names of {@link HiLoGeneratorOptions}, for refusing a typo rather than ignoring it. */
export const GENERATOR_OPTION_NAMES: ReadonlySet<string> = new Set([
  'source',
  'blockSize',
  'maxBlockSize',
  'adaptive',
  'firstBlockSize',
  'prefetchAt',
  'keyType',
  'timeoutMs',
  'retryBudgetMs',
  'closeTimeoutMs',
  'retries',
  'retryBaseDelayMs',
  'retryMaxDelayMs',
  'maxKey',
  'segments',
  'idFormat',
  'onEvent',
  'storedKeys',
  'onStoreBehind',
  'serverCheckMs',
  'peerCheckMs',
]);

/** Validates every option up front; throws `HiLoConfigurationError` naming the bad value and the fix. */
export function resolveOptions(options: HiLoGeneratorOptions<KeyType>): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw HiLoConfigurationError.invalidOption('options', 'an object with at least `source`', options);
  }
  HiLoConfigurationError.checkOptionNames(options, GENERATOR_OPTION_NAMES, 'createHiLoGenerator()');
  const { source } = options;
  if (typeof source !== 'object' || source === null || typeof source.reserve !== 'function') {
    throw HiLoConfigurationError.invalidOption(
      'source',
      'a hi source with a reserve() method (e.g. sequenceSource(client), tableSource(client) or memorySource())',
      source,
    );
  }
  const blockSize = checkInteger('blockSize', options.blockSize ?? 100, { max: MAX_BLOCK_SIZE });
  const maxBlockSize = checkInteger('maxBlockSize', options.maxBlockSize ?? Math.max(blockSize, 1_048_576), {
    max: MAX_BLOCK_SIZE,
  });
  if (maxBlockSize < blockSize) {
    throw configurationErrors.maxBlockSizeBelowBlockSize(maxBlockSize, blockSize);
  }
  let adaptiveTargetMs: number | undefined;
  const adaptive = options.adaptive ?? true;
  if (adaptive === true) adaptiveTargetMs = 5000;
  else if (adaptive === false) adaptiveTargetMs = undefined;
  else if (typeof adaptive === 'object' && adaptive !== null) {
    adaptiveTargetMs = checkInteger('adaptive.targetMs', adaptive.targetMs, { max: 86_400_000 });
  } else throw HiLoConfigurationError.invalidOption('adaptive', 'true, false or { targetMs: number }', adaptive);

  // a `firstBlockSize` above a segment's `blockSize` is that segment's `blockSize` (see the generator)
  const firstBlockSize = checkInteger('firstBlockSize', options.firstBlockSize ?? 4, { max: MAX_BLOCK_SIZE });

  let prefetchAt: number | undefined;
  const p = options.prefetchAt ?? DEFAULT_PREFETCH_AT;
  if (p === false) prefetchAt = undefined;
  else if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
    throw HiLoConfigurationError.invalidOption('prefetchAt', 'a fraction in [0, 1] or false', p);
  } else prefetchAt = p;

  const keyType = options.keyType ?? 'number';
  if (keyType !== 'number' && keyType !== 'bigint') {
    throw HiLoConfigurationError.invalidOption('keyType', '"number" or "bigint"', keyType);
  }
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? 5000, { max: 3_600_000 });
  const retries =
    options.retries === undefined
      ? Number.POSITIVE_INFINITY
      : checkInteger('retries', options.retries, { min: 0, max: 1_000_000 });
  const retryBudgetMs = checkInteger('retryBudgetMs', options.retryBudgetMs ?? 10_000, { min: 0, max: 86_400_000 });
  const closeTimeoutMs = checkInteger('closeTimeoutMs', options.closeTimeoutMs ?? 5000, { min: 0, max: 3_600_000 });
  const retryBaseDelayMs = checkInteger('retryBaseDelayMs', options.retryBaseDelayMs ?? 50, { min: 0, max: 60_000 });
  const retryMaxDelayMs = checkInteger('retryMaxDelayMs', options.retryMaxDelayMs ?? 2000, { min: 0, max: 600_000 });

  const maxKey = keyLimit(
    'maxKey',
    options.maxKey ?? (keyType === 'bigint' ? 2n ** 63n - 1n : Number.MAX_SAFE_INTEGER),
  );
  const segments: Record<string, { blockSize: number; maxBlockSize: number; maxKey: bigint }> = {};
  if (options.segments !== undefined) {
    if (typeof options.segments !== 'object' || options.segments === null) {
      throw HiLoConfigurationError.invalidOption('segments', 'an object keyed by segment name', options.segments);
    }
    for (const [name, so] of Object.entries(options.segments)) {
      validateSegment(name);
      const b = checkInteger(`segments.${name}.blockSize`, so?.blockSize ?? blockSize, { max: MAX_BLOCK_SIZE });
      const m = checkInteger(`segments.${name}.maxBlockSize`, so?.maxBlockSize ?? Math.max(b, maxBlockSize), {
        max: MAX_BLOCK_SIZE,
      });
      if (m < b) {
        throw configurationErrors.segmentMaxBlockSizeBelowBlockSize(name, m, b);
      }
      segments[name] = {
        blockSize: b,
        maxBlockSize: m,
        maxKey: so?.maxKey === undefined ? maxKey : keyLimit(`segments.${name}.maxKey`, so.maxKey),
      };
    }
  }

  const format = options.idFormat ?? {};
  const separator = format.separator ?? '/';
  if (typeof separator !== 'string' || separator.length === 0 || /[|0-9]/.test(separator)) {
    throw HiLoConfigurationError.invalidOption(
      'idFormat.separator',
      'a non-empty string without "|" or digits',
      separator,
    );
  }
  const nodeTag = format.nodeTag;
  if (nodeTag !== undefined && (typeof nodeTag !== 'string' || !/^[A-Za-z0-9]{1,16}$/.test(nodeTag))) {
    throw HiLoConfigurationError.invalidOption('idFormat.nodeTag', '1 to 16 letters or digits, e.g. "A"', nodeTag);
  }
  const prefix = format.prefix ?? ((segment: string) => segment);
  if (typeof prefix !== 'function') {
    throw HiLoConfigurationError.invalidOption('idFormat.prefix', 'a function (segment) => string', prefix);
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw HiLoConfigurationError.invalidOption('onEvent', 'a function', options.onEvent);
  }
  const storedKeys = options.storedKeys;
  if (
    storedKeys !== undefined &&
    (typeof storedKeys !== 'object' ||
      storedKeys === null ||
      typeof storedKeys.largest !== 'function' ||
      typeof storedKeys.within !== 'function')
  ) {
    throw HiLoConfigurationError.invalidOption(
      'storedKeys',
      'an object with largest() and within() methods, e.g. sqlStoredKeys(client, [{ segment, table, column }])',
      storedKeys,
    );
  }
  const onStoreBehind = options.onStoreBehind ?? 'error';
  if (onStoreBehind !== 'error' && onStoreBehind !== 'lift') {
    throw HiLoConfigurationError.invalidOption('onStoreBehind', '"error" or "lift"', onStoreBehind);
  }
  const shared: unknown = storedKeys?.sharedWith;
  const mismatch: unknown = (shared as { mismatch?: unknown } | null | undefined)?.mismatch;
  if (shared !== undefined && typeof mismatch !== 'function') {
    throw HiLoConfigurationError.invalidOption('storedKeys.sharedWith', 'an object with a mismatch() method', shared);
  }
  if (onStoreBehind === 'lift' && shared !== undefined) {
    throw configurationErrors.liftOnSharedStore();
  }
  if (options.onStoreBehind !== undefined && storedKeys === undefined) {
    throw configurationErrors.onStoreBehindWithoutStoredKeys();
  }
  const check = options.serverCheckMs ?? 1000;
  const serverCheckMs = check === false ? undefined : checkInteger('serverCheckMs', check, { min: 10, max: 3_600_000 });
  let peerCheckMs: number | undefined;
  if (options.peerCheckMs !== undefined && shared === undefined) {
    throw configurationErrors.peerCheckWithoutSharedStore();
  }
  const peer = options.peerCheckMs ?? 1000;
  if (shared !== undefined && peer !== false) {
    peerCheckMs = checkInteger('peerCheckMs', peer, { min: 10, max: 3_600_000 });
  }
  return {
    source,
    serverCheckMs,
    peerCheckMs,
    storedKeys,
    onStoreBehind,
    blockSize,
    maxBlockSize,
    adaptiveTargetMs,
    firstBlockSize,
    prefetchAt,
    keyType,
    timeoutMs,
    retries,
    retryBudgetMs,
    closeTimeoutMs,
    retryBaseDelayMs,
    retryMaxDelayMs,
    maxKey,
    segments,
    separator,
    nodeTag,
    prefix,
    onEvent: options.onEvent === undefined ? undefined : namedHandler(options.onEvent),
  };
}

/**
 * Segment names, one rule for the generator and every source: 1–255 characters (what a hi table's `segment`
 * column stores), no control characters. Sources that turn them into identifiers check more.
 */
export function validateSegment(segment: unknown): asserts segment is string {
  checkSegment(segment);
}
