import { checkInteger } from '../engine/checks.js';
import { missingObjectHint } from '../errors.js';
import { validateSegment } from '../engine/segment-name.js';
import type { Dialect } from '../sql/dialect.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import { keyArithmetic, mergeBlocks, validateStrategy, type HiLoStrategy } from '../engine/strategies.js';
import type { Block, ReserveRequest } from '../engine/types.js';
import { abortable } from '../sql/abortable.js';
import { convertDriverError, isDuplicate, isLostConnection, isMissingObject } from '../sql/driver-errors.js';
import type { ReserveStatementOptions } from '../sql/replication.js';
import { sourceReplication } from './replication-support.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { FloorFrom, FloorResult, SegmentStatus, SqlHiSource } from './sql-hi-source.js';
import { sourceErrors } from '../error-messages.js';

/** Strategies a table source supports. `range` keeps the last reserved key, `pooled-lo` the next free one. */
export type TableStrategy = Extract<HiLoStrategy, 'pooled-lo' | 'range' | 'hilo'>;

/** Options of a table source: one row per segment in a table. */
export interface TableSourceOptions {
  /**
   * The hi table.
   * @default 'hilo_segments'
   */
  readonly table?: string;
  /** Its schema (PostgreSQL) or database (MySQL); default: the connection's. Not used on SQLite. */
  readonly schema?: string;
  /**
   * What the stored value means: `pooled-lo` (next free key; any block size), `range` (last reserved key,
   * RavenDB's `Max`; any block size), or `hilo` (next hi; blocks of `increment` keys).
   * @default 'pooled-lo'
   */
  readonly strategy?: TableStrategy;
  /**
   * `hilo` only: keys per hi (`maxLo`); reservations are rounded up to a multiple of it.
   * @default 1000
   */
  readonly increment?: number;
  /** The option name errors about `increment` use: `createHiLo()` passes `'blockSize'`, the option its caller set. */
  readonly incrementOption?: string;
  /**
   * Column names, to share a table with another tool (e.g. Hibernate's `sequence_name`/`next_val`).
   * @default { segment: 'segment', value: 'next_value' }
   */
  readonly columns?: { readonly segment?: string; readonly value?: string };
  /**
   * Whether `prepare` creates the table and the segment's row when missing. Without it, a missing table
   * or row is an error that says to run `hilo init`.
   * @default true
   */
  readonly create?: boolean;
  /**
   * The largest key stored for a segment (`undefined`: none), read when `prepare` (or a reservation that finds
   * the row gone) inserts a missing row, so that it starts above the rows instead of at the first block
   * (`createHiLo` wires it from `storedKeys`).
   * @default none (a new row starts at the first block)
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

/** The SQL one database speaks for a table source. Identifiers arrive validated and quoted. */
export interface TableStatements {
  /** The database these statements are written for: its quoting, placeholders, literals and error codes. */
  readonly dialect: Dialect;
  createTable(table: string, segment: string, value: string): string;
  /** Inserts a row unless it exists; params `[segment, initialValue]`. */
  insertRow(table: string, segment: string, value: string): string;
  /**
   * Optional: the statements that write the row, as `client`'s server needs them where they differ (a Galera node:
   * a session whose writes would stay on that node changes nothing). Asked once per source; the plain ones stay
   * those of migration files (`schemaSql`).
   */
  writesOn?(client: SqlClient): Promise<RowWrites>;
  /**
   * Adds `amount` atomically, in a transaction of its own; resolves with the new value, or undefined without a
   * row. With `options`, also the server's identity and a commit that waits for a synchronous standby.
   */
  advance(
    client: SqlClient,
    table: string,
    segment: string,
    value: string,
    key: string,
    amount: bigint,
    options?: ReserveStatementOptions,
  ): Promise<bigint | undefined>;
  /** Params `[newValue, segment, expected]`. */
  compareAndSet(table: string, segment: string, value: string): string;
  /** Sets the value where it is below; params `[value, segment, value]`. */
  raiseTo(table: string, segment: string, value: string): string;
  /** Selects every row as `s` (segment) and `v` (value as text). */
  readAll(table: string, segment: string, value: string): string;
}

/** The statements of {@link TableStatements} that write the row. */
export type RowWrites = Pick<TableStatements, 'insertRow' | 'compareAndSet' | 'raiseTo'>;

/** Default table name of table sources. */
export const DEFAULT_TABLE = 'hilo_segments';

/** Reads a database integer that arrives as text, number or bigint. */
/**
 * The largest value of `column` in `table` (both already quoted), read as text so that no driver rounds it;
 * undefined when the table is empty. What `raiseFloor` of every SQL source lifts the store above.
 */
export async function largestKeyIn(
  client: SqlClient,
  rules: Dialect,
  table: string,
  column: string,
): Promise<bigint | undefined> {
  const { rows } = await client.query<{ m: unknown }>(`select ${rules.asText(`max(${column})`)} as m from ${table}`);
  const raw = rows[0]?.m;
  return raw === null || raw === undefined ? undefined : toBigInt(raw, `max(${column})`);
}

export function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if ((typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))) {
    return BigInt(value);
  }
  throw sourceErrors.notAnInteger(what, value);
}

/** Runs `work`; if an established connection died, once more (a reservation retried is a gap, never a duplicate). */
export async function retryLostConnection<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isLostConnection(error)) throw error;
    return work();
  }
}

/** Builds a table source from one database's statements. */
export function createTableSource(client: SqlClient, options: TableSourceOptions, sql: TableStatements): SqlHiSource {
  const dialect = client.dialect;
  const strategy = validateStrategy(
    options.strategy ?? 'pooled-lo',
    ['pooled-lo', 'range', 'hilo'] as const,
    'a table source',
  );
  const increment = BigInt(checkInteger(options.incrementOption ?? 'increment', options.increment ?? 1000));
  const create = options.create ?? true;
  const tableName = validateIdentifier('table', options.table ?? DEFAULT_TABLE);
  const rules = sql.dialect;
  const schema = rules.hasSchemas ? options.schema : undefined;
  const table = qualifiedName(rules, 'table', tableName, schema);
  const seg = rules.quote(validateIdentifier('segment column', options.columns?.segment ?? 'segment'));
  const val = rules.quote(validateIdentifier('value column', options.columns?.value ?? 'next_value'));
  const initial = strategy === 'pooled-lo' ? 1n : 0n;
  const description = `${dialect} table ${table}`;
  const missingHint = missingObjectHint(`table ${table}`);
  const prepared = new Map<string, Promise<void>>();
  const replication = sourceReplication(client, rules, description, options.synchronousStandby ?? false);

  let rowWrites: Promise<RowWrites> | undefined;
  /** The statements that write the row on this client's server (`writesOn`), asked once. */
  const writes = (): Promise<RowWrites> => {
    if (rowWrites === undefined) {
      const found = sql.writesOn === undefined ? Promise.resolve(sql) : sql.writesOn(client);
      rowWrites = found;
      found.catch(() => (rowWrites = undefined));
    }
    return rowWrites;
  };

  const fail = (error: unknown, action: string) =>
    convertDriverError(error, { dialect: rules, action: `${action} (${description})`, missingHint });

  async function createTable(): Promise<void> {
    try {
      await client.query(sql.createTable(table, seg, val));
    } catch (error) {
      // two processes creating the table at once: one wins, the other sees a duplicate
      if (!isDuplicate(error, rules)) throw error;
    }
  }

  async function insertRow(segment: string): Promise<void> {
    // rows stored before the hi row existed (it was deleted, or is new on an old table): start above them
    const above = await options.createAbove?.(segment);
    const floor = above === undefined ? initial : keyArithmetic.floorValue(strategy, above, increment);
    const value = floor > initial ? floor : initial;
    const insert = (await writes()).insertRow(table, seg, val);
    try {
      await client.query(insert, [segment, value]);
    } catch (error) {
      if (create && isMissingObject(error, rules)) {
        await createTable();
        await client.query(insert, [segment, value]);
      } else throw error;
    }
  }

  /** With `synchronousStandby`, the standby is checked first: inserting the row would wait for it too. */
  async function prepare(segment: string, signal?: AbortSignal): Promise<void> {
    await replication.check(signal);
    return prepareSegment(segment, signal);
  }

  function prepareSegment(segment: string, signal?: AbortSignal): Promise<void> {
    validateSegment(segment);
    let done = prepared.get(segment);
    if (!done) {
      const work = async () => {
        if (!create) {
          const { rows } = await client.query(
            `${sql.readAll(table, seg, val)} where ${seg} = ${rules.placeholder(1)}`,
            [segment],
          );
          if (rows.length === 0) {
            throw sourceErrors.segmentRowMissing(segment, table, missingObjectHint('it', segment));
          }
          return;
        }
        await insertRow(segment);
      };
      done = retryLostConnection(work).catch((error: unknown) => {
        prepared.delete(segment);
        throw fail(error, `preparing segment "${segment}"`);
      });
      prepared.set(segment, done);
    }
    return abortable(done, signal, `preparing segment "${segment}"`);
  }

  async function advance(segment: string, amount: bigint, statement?: ReserveStatementOptions): Promise<bigint> {
    let value = await sql.advance(client, table, seg, val, segment, amount, statement);
    if (value === undefined) {
      // the row vanished after prepare (or prepare was skipped): create it again only if allowed
      if (!create) throw sourceErrors.segmentRowMissing(segment, table, missingObjectHint('it', segment));
      await insertRow(segment);
      value = await sql.advance(client, table, seg, val, segment, amount, statement);
      if (value === undefined) throw sourceErrors.segmentRowMissingAfterInsert(segment, table);
    }
    return value;
  }

  async function reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
    const size = checkInteger('size', request.size);
    await prepare(segment, request.signal);
    const action = `reserving ${size} keys for segment "${segment}"`;
    const statement = await replication.statementOptions(request);
    const work = () =>
      retryLostConnection(async (): Promise<Block[]> => {
        if (strategy === 'hilo') {
          // the row holds the next hi: the his taken are next − his … next − 1
          const his = BigInt(Math.ceil(size / Number(increment)));
          const next = await advance(segment, his, statement);
          return keyArithmetic.blocksFromValueRange('hilo', next - his, next - 1n, increment);
        }
        const amount = BigInt(size);
        const value = await advance(segment, amount, statement);
        // pooled-lo stores the next free key (the block starts at the value before), range the last reserved one
        return keyArithmetic.blocksFromValues(strategy, [strategy === 'pooled-lo' ? value - amount : value], amount);
      }).catch((error: unknown) => {
        throw fail(error, action);
      });
    const blocks = await replication.run(work, request.signal, action);
    if (blocks.length === 0 || blocks.reduce((n, b) => n + b.last - b.first + 1n, 0n) < BigInt(size)) {
      // only hi 0 of `hilo` is short (key 0 is skipped): top up
      const more = await reserve(segment, request);
      return mergeBlocks([...blocks, ...more]);
    }
    return blocks;
  }

  async function release(segment: string, unused: Block): Promise<boolean> {
    validateSegment(segment);
    const swap = keyArithmetic.releaseTail(strategy, unused);
    if (swap === undefined) return false;
    try {
      const cas = (await writes()).compareAndSet(table, seg, val);
      const { affectedRows } = await client.query(cas, [swap.set, segment, swap.expect]);
      return affectedRows === 1;
    } catch (error) {
      throw fail(error, `returning unused keys of segment "${segment}"`);
    }
  }

  /** Moves the row so that its next block lies above `above`; never backwards. */
  async function raiseAbove(segment: string, above: bigint, signal?: AbortSignal): Promise<boolean> {
    await prepare(segment, signal);
    const target = keyArithmetic.floorValue(strategy, above, increment);
    try {
      const { affectedRows } = await client.query((await writes()).raiseTo(table, seg, val), [target, segment, target]);
      return affectedRows === 1;
    } catch (error) {
      throw fail(error, `raising the floor of segment "${segment}" above key ${above}`);
    }
  }

  async function raiseFloor(segment: string, from: FloorFrom): Promise<FloorResult> {
    await prepare(segment);
    const source = qualifiedName(rules, 'floor table', from.table, rules.hasSchemas ? from.schema : undefined);
    const column = rules.quote(validateIdentifier('floor column', from.column ?? 'id'));
    try {
      const maxKey = await largestKeyIn(client, rules, source, column);
      if (maxKey === undefined) return { segment, maxKey: undefined, raised: false };
      return { segment, maxKey, raised: await raiseAbove(segment, maxKey) };
    } catch (error) {
      throw convertDriverError(error, {
        dialect: rules,
        action: `raising the floor of segment "${segment}" above ${source}.${column}`,
      });
    }
  }

  /** Reads the row (never creates it) and says where the next reservation's keys would start. */
  async function nextKey(segment: string, signal?: AbortSignal): Promise<bigint> {
    validateSegment(segment);
    const action = `reading the stored value of segment "${segment}"`;
    const read = async () => {
      // on a Galera node, a reservation another node just committed must be seen (`hilo check`)
      const causal = (await rules.replication?.causalRead?.(client)) ?? '';
      const { rows } = await client.query<{ s: unknown; v: unknown }>(
        `${causal}${sql.readAll(table, seg, val)} where ${seg} = ${rules.placeholder(1)}`,
        [segment],
      );
      return rows[0];
    };
    const row = await abortable(retryLostConnection(read), signal, action).catch((error: unknown) => {
      throw fail(error, action);
    });
    if (row === undefined) {
      throw sourceErrors.segmentRowMissing(segment, table, missingObjectHint('it', segment));
    }
    return keyArithmetic.nextFirstKey(strategy, toBigInt(row.v, 'the stored value'), increment);
  }

  async function status(): Promise<SegmentStatus[]> {
    try {
      const { rows } = await client.query<{ s: unknown; v: unknown }>(
        `${sql.readAll(table, seg, val)} order by ${seg}`,
      );
      return rows.map((row) => ({
        segment: String(row.s),
        source: 'table' as const,
        object: table,
        value: row.v === null || row.v === undefined ? undefined : toBigInt(row.v, 'the stored value'),
      }));
    } catch (error) {
      if (isMissingObject(error, rules)) return [];
      throw fail(error, 'reading segments');
    }
  }

  return {
    kind: 'table',
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
    release,
    raiseAbove,
    raiseFloor,
    nextKey,
    status,
    schemaSql(segments: readonly string[]): string[] {
      const statements = [sql.createTable(table, seg, val)];
      for (const segment of segments) {
        validateSegment(segment);
        // literal seed rows for migration files: quotes doubled, the only escaping standard SQL needs
        const literal = rules.literal(segment);
        const insert = sql.insertRow(table, seg, val);
        let n = 0;
        statements.push(insert.replace(/\$\d+|\?/g, () => (n++ === 0 ? literal : initial.toString())));
      }
      return statements;
    },
  };
}
