import { checkInteger } from '../engine/checks.js';
import { HiLoConfigurationError, missingObjectHint, type HiLoError } from '../errors.js';
import { validateSegment } from '../engine/segment-name.js';
import type { Dialect } from '../sql/dialect.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import {
  incrementsFor,
  keyArithmetic,
  keyCount,
  mergeBlocks,
  validateStrategy,
  type HiLoStrategy,
} from '../engine/strategies.js';
import type { Block, ReserveRequest } from '../engine/types.js';
import { abortable } from '../sql/abortable.js';
import { convertDriverError, isDuplicate } from '../sql/driver-errors.js';
import type { ReserveStatementOptions } from '../sql/replication.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { FloorFrom, FloorResult, SegmentStatus, SqlHiSource } from './sql-hi-source.js';
import { sourceReplication } from './replication-support.js';
import { largestKeyIn, retryLostConnection } from './table-source.js';
import { mismatchErrors, sourceErrors } from '../error-messages.js';

/** Strategies a sequence source supports. */
export type SequenceStrategy = Extract<HiLoStrategy, 'pooled-lo' | 'pooled' | 'hilo'>;

/** Options of a sequence source: one database sequence per segment. */
export interface SequenceSourceOptions {
  /**
   * Keys per `nextval`: the sequence's INCREMENT BY for `pooled-lo`/`pooled`, `maxLo` for `hilo` (whose
   * sequence advances by 1). A reservation asks for as many increments as its size needs, in one round trip.
   *
   * @example
   * ```ts
   * sequenceSource(client, { increment: 100 });
   * ```
   */
  readonly increment: number;
  /** The sequences' schema (PostgreSQL) or database (MariaDB); default: the connection's. */
  readonly schema?: string;
  /**
   * The sequence name of a segment; it must match `IDENTIFIER_PATTERN`.
   * @default (segment) => `${segment}_hilo_seq`
   */
  readonly name?: (segment: string) => string;
  /**
   * What a sequence value means: `pooled-lo` (first key of the block; EF Core, Hibernate pooled-lo),
   * `pooled` (last key; Hibernate pooled) or `hilo` (a hi counter: keys `hi × increment …`).
   * @default 'pooled-lo'
   */
  readonly strategy?: SequenceStrategy;
  /**
   * Whether `prepare` creates a missing sequence (INCREMENT BY `increment`). An existing one is read: for
   * `pooled-lo` and `pooled` its real INCREMENT BY decides the block of each value, so a `blockSize` changed
   * between deployments keeps working; `hilo` needs INCREMENT BY 1.
   * @default true
   */
  readonly create?: boolean;
  /**
   * Refuse (`HiLoMismatchError`) an existing sequence whose INCREMENT BY differs from `increment` instead
   * of adopting it, naming this option in the message. For presets whose other party (EF Core, Hibernate)
   * derives its blocks from a fixed increment, so adopting ours would not make theirs safe.
   *
   * @example
   * ```ts
   * sequenceSource(client, { increment: 10, fixedIncrement: 'incrementBy' });
   * ```
   */
  readonly fixedIncrement?: string;
  /**
   * The option name the user set, used in messages about `increment` (e.g. `blockSize` in `createHiLo`).
   * @default 'increment'
   */
  readonly incrementOption?: string;
  /**
   * The largest key stored for a segment (`undefined`: none), read when `prepare` creates a missing sequence so
   * that it starts above the rows instead of at 1 (`createHiLo` wires it from `storedKeys`).
   * @default none (a new sequence starts at its first block)
   */
  readonly createAbove?: (segment: string) => Promise<bigint | undefined>;
  /**
   * Reservations count only once a synchronous standby has them: each reservation's commit waits until the
   * standby flushed it (PostgreSQL's `synchronous_commit = on` for that statement, plus a WAL record so that a
   * sequence's logged-ahead values are covered too), so a standby promoted after a failover never hands out a
   * key this source handed out. Before its first reservation, and again after a failover, the source checks that
   * the server has a synchronous standby (`synchronous_standby_names`, `pg_stat_replication`), and each
   * reservation reads in its own statement whether one is there (its keys are discarded otherwise). Without one
   * (a standby reconnecting, a failover manager that has not listed it yet, a server in recovery) reservations
   * wait, asking again every 200 ms, for `timeoutMs`, then within `retryBudgetMs`, and then fail with
   * `HiLoSynchronousStandbyError`, as they do while an earlier reservation still waits for a standby that lags or
   * was cut off. PostgreSQL only. See "Failover" in the hilo-core README.
   * @default false
   */
  readonly synchronousStandby?: boolean;
}

/** Suffix of default sequence names; `status()` lists sequences that end with it. */
export const SEQUENCE_SUFFIX = '_hilo_seq';

/** The SQL one database speaks for a sequence source. Names arrive validated and quoted. */
export interface SequenceStatements {
  /** The database these statements are written for: its quoting, casts and error codes. */
  readonly dialect: Dialect;
  /**
   * Why sequences of this server cannot hand out unique keys (a MariaDB Galera node: `nextval` is not unique across
   * nodes), as the error to throw before anything is created or reserved; `undefined` when they can.
   */
  refusal?(client: SqlClient, sequence: string): Promise<HiLoError | undefined>;
  createSequence(sequence: string, incrementBy: bigint, start: bigint, minValue: bigint): string;
  /** The sequence's INCREMENT BY, or undefined when it does not exist. */
  readIncrement(
    client: SqlClient,
    sequence: string,
    schema: string | undefined,
    name: string,
  ): Promise<bigint | undefined>;
  /**
   * `count` values of `nextval`, in one round trip; with `options`, also the server's identity (reported before
   * it resolves) and a commit that waits for a synchronous standby, in the same statement.
   */
  nextValues(client: SqlClient, sequence: string, count: number, options?: ReserveStatementOptions): Promise<bigint[]>;
  /** Makes the next value at least `target` without ever moving back; resolves with whether it moved. */
  raiseTo(client: SqlClient, sequence: string, incrementBy: bigint, target: bigint): Promise<boolean>;
  /**
   * Changes INCREMENT BY from `from` to `to` so that the next value's block starts after every block handed
   * out with `from` (a shrinking PostgreSQL sequence would otherwise return last_value + `to`, inside the last
   * pooled-lo block).
   */
  alterIncrement(client: SqlClient, sequence: string, from: bigint, to: bigint): Promise<void>;
  /**
   * The value the next `nextval` returns, read without calling it (`incrementBy` is the sequence's own); for a
   * sequence that caches values per connection or server, the lowest value a cached one can be.
   */
  readNext(
    client: SqlClient,
    sequence: string,
    schema: string | undefined,
    name: string,
    incrementBy: bigint,
  ): Promise<bigint>;
  /** The sequences of `schema` whose names end with {@link SEQUENCE_SUFFIX}. */
  list(
    client: SqlClient,
    schema: string | undefined,
  ): Promise<{ name: string; object: string; value: bigint | undefined; increment: bigint }[]>;
}

/** Builds a sequence source from one database's statements. */
export function createSequenceSource(
  client: SqlClient,
  options: SequenceSourceOptions,
  sql: SequenceStatements,
): SqlHiSource {
  const dialect = client.dialect;
  const rules = sql.dialect;
  if (typeof options !== 'object' || options === null)
    throw HiLoConfigurationError.invalidOption('options', 'an object with `increment`', options);
  const { increment: inc } = options;
  const increment = BigInt(checkInteger(options.incrementOption ?? 'increment', inc));
  const strategy = validateStrategy(
    options.strategy ?? 'pooled-lo',
    ['pooled-lo', 'pooled', 'hilo'] as const,
    'a sequence source',
  );
  const create = options.create ?? true;
  const schema = options.schema === undefined ? undefined : validateIdentifier('schema', options.schema);
  const nameOf = options.name ?? ((segment: string) => `${segment}${SEQUENCE_SUFFIX}`);
  const incrementBy = strategy === 'hilo' ? 1n : increment;
  const start = strategy === 'pooled' ? increment : strategy === 'hilo' ? 0n : 1n;
  const minValue = strategy === 'hilo' ? 0n : 1n;
  const prepared = new Map<string, Promise<void>>();
  /** Per segment, the INCREMENT BY the sequence really has: each `nextval` value is a block of that size. */
  const actualIncrement = new Map<string, bigint>();
  const fixedIncrement = options.fixedIncrement;
  const description =
    `${dialect} sequence per segment${schema === undefined ? '' : ` in schema ${schema}`} (${strategy}, ` +
    `increment ${increment})`;
  const replication = sourceReplication(client, rules, description, options.synchronousStandby ?? false);

  function sequenceOf(segment: string): { name: string; quoted: string } {
    validateSegment(segment);
    const name = validateIdentifier(`sequence (of segment ${JSON.stringify(segment)})`, nameOf(segment));
    return { name, quoted: qualifiedName(rules, 'sequence', name, schema) };
  }

  const describeSeq = (quoted: string) => `${dialect} sequence ${quoted}`;
  const fail = (error: unknown, action: string, quoted: string) =>
    convertDriverError(error, {
      dialect: rules,
      action: `${action} (${describeSeq(quoted)})`,
      missingHint: missingObjectHint(`sequence ${quoted}`),
    });

  async function check(segment: string, name: string, quoted: string): Promise<void> {
    const refused = await sql.refusal?.(client, quoted);
    if (refused !== undefined) throw refused;
    let actual = await sql.readIncrement(client, quoted, schema, name);
    if (actual === undefined && create) {
      // rows stored before the sequence existed (it was dropped, or is new on an old table): start above them
      const above = await options.createAbove?.(segment);
      const floor = above === undefined ? start : keyArithmetic.floorValue(strategy, above, increment);
      try {
        await client.query(sql.createSequence(quoted, incrementBy, floor > start ? floor : start, minValue));
      } catch (error) {
        // `if not exists` still races in PostgreSQL's catalog: the loser sees a duplicate, which is fine
        if (!isDuplicate(error, rules)) throw error;
      }
      actual = await sql.readIncrement(client, quoted, schema, name);
    }
    if (actual === undefined) {
      throw sourceErrors.sequenceMissing(quoted, segment, missingObjectHint('it', segment));
    }
    if (actual === incrementBy) {
      actualIncrement.set(segment, actual);
      return;
    }
    if (strategy === 'hilo') {
      throw mismatchErrors.hiloNeedsIncrementOne(quoted, actual, increment);
    }
    if (fixedIncrement !== undefined) {
      throw mismatchErrors.fixedIncrementDiffers(quoted, actual, fixedIncrement, increment);
    }
    if (actual < 1n) {
      throw mismatchErrors.notAscending(quoted, actual, increment, segment);
    }
    // a block size changed between deployments: each value v is still the block [v, v + actual) (pooled-lo)
    // or (v - actual, v] (pooled), disjoint from every earlier block, so we reserve in units of the real increment
    actualIncrement.set(segment, actual);
  }

  /** With `synchronousStandby`, the standby is checked first: creating a sequence would wait for it too. */
  async function prepare(segment: string, signal?: AbortSignal): Promise<void> {
    await replication.check(signal);
    return prepareSegment(segment, signal);
  }

  function prepareSegment(segment: string, signal?: AbortSignal): Promise<void> {
    const { name, quoted } = sequenceOf(segment);
    let done = prepared.get(segment);
    if (!done) {
      done = retryLostConnection(() => check(segment, name, quoted)).catch((error: unknown) => {
        prepared.delete(segment);
        throw fail(error, `preparing segment "${segment}"`, quoted);
      });
      prepared.set(segment, done);
    }
    return abortable(done, signal, `preparing segment "${segment}"`);
  }

  async function reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
    const size = checkInteger('size', request.size);
    const { quoted } = sequenceOf(segment);
    await prepare(segment, request.signal);
    const step = actualIncrement.get(segment) ?? incrementBy;
    const perValue = strategy === 'hilo' ? increment : step;
    const action = `reserving ${size} keys for segment "${segment}"`;
    const blocks: Block[] = [];
    // `hilo` hi 0 and a `pooled` value below `increment` hold fewer keys (keys < 1 are skipped): top up
    while (keyCount(blocks) < BigInt(size)) {
      const missing = Number(BigInt(size) - keyCount(blocks));
      const statement = await replication.statementOptions(request);
      const values = await replication.run(
        () =>
          retryLostConnection(() =>
            sql.nextValues(client, quoted, incrementsFor(missing, Number(perValue)), statement),
          ).catch((error: unknown) => {
            throw fail(error, action, quoted);
          }),
        request.signal,
        action,
      );
      blocks.push(...keyArithmetic.blocksFromValues(strategy, values, perValue));
    }
    return blocks.length > 1 ? mergeBlocks(sortBlocks(blocks)) : blocks;
  }

  /** Moves the sequence so that its next block lies above `above`; never backwards. */
  async function raiseAbove(segment: string, above: bigint, signal?: AbortSignal): Promise<boolean> {
    const { quoted } = sequenceOf(segment);
    await prepare(segment, signal);
    const step = actualIncrement.get(segment) ?? incrementBy;
    const perValue = strategy === 'hilo' ? increment : step;
    try {
      return await sql.raiseTo(client, quoted, step, keyArithmetic.floorValue(strategy, above, perValue));
    } catch (error) {
      throw convertDriverError(error, {
        dialect: rules,
        action: `raising the floor of ${describeSeq(quoted)} above key ${above}`,
      });
    }
  }

  async function raiseFloor(segment: string, from: FloorFrom): Promise<FloorResult> {
    const { quoted } = sequenceOf(segment);
    await prepare(segment);
    const source = qualifiedName(rules, 'floor table', from.table, from.schema);
    const column = rules.quote(validateIdentifier('floor column', from.column ?? 'id'));
    try {
      const maxKey = await largestKeyIn(client, rules, source, column);
      if (maxKey === undefined) return { segment, maxKey: undefined, raised: false };
      return { segment, maxKey, raised: await raiseAbove(segment, maxKey) };
    } catch (error) {
      throw convertDriverError(error, {
        dialect: rules,
        action: `raising the floor of ${describeSeq(quoted)} above ${source}.${column}`,
      });
    }
  }

  /** Reads the sequence (never creates it, never calls nextval) and says where the next block would start. */
  async function nextKey(segment: string, signal?: AbortSignal): Promise<bigint> {
    const { name, quoted } = sequenceOf(segment);
    const action = `reading the position of ${describeSeq(quoted)}`;
    const read = async () => {
      const actual = await sql.readIncrement(client, quoted, schema, name);
      if (actual === undefined) {
        throw sourceErrors.sequenceMissing(quoted, segment, missingObjectHint('it', segment));
      }
      return { actual, next: await sql.readNext(client, quoted, schema, name, actual) };
    };
    const { actual, next } = await abortable(retryLostConnection(read), signal, action).catch((error: unknown) => {
      throw fail(error, action, quoted);
    });
    return keyArithmetic.nextFirstKey(strategy, next, strategy === 'hilo' ? increment : actual);
  }

  async function status(): Promise<SegmentStatus[]> {
    try {
      const found = await sql.list(client, schema);
      return found.map((s) => ({
        segment: s.name.slice(0, -SEQUENCE_SUFFIX.length),
        source: 'sequence' as const,
        object: s.object,
        value: s.value,
        increment: s.increment,
      }));
    } catch (error) {
      throw convertDriverError(error, { dialect: rules, action: 'listing hi/lo sequences' });
    }
  }

  return {
    kind: 'sequence',
    dialect,
    strategy,
    description,
    prepare,
    reserve,
    ...(replication.server === undefined
      ? {}
      : {
          server: replication.server,
          ...(replication.serverMayReturn ? { serverMayReturn: true } : {}),
          ...(replication.serverChange === undefined ? {} : { serverChange: replication.serverChange }),
        }),
    raiseAbove,
    raiseFloor,
    nextKey,
    status,
    schemaSql: (segments) =>
      segments.map((segment) => sql.createSequence(sequenceOf(segment).quoted, incrementBy, start, minValue)),
  };
}

function sortBlocks(blocks: readonly Block[]): Block[] {
  return [...blocks].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
}
