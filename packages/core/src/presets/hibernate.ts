import { checkInteger } from '../engine/checks.js';
import { HiLoConfigurationError, HiLoError, HiLoMismatchError } from '../errors.js';
import { validateSegment } from '../engine/segment-name.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import { sequenceSource } from '../operations/sources.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import { toBigInt } from '../sources/table-source.js';
import { blockFromValue, incrementsFor, keyArithmetic, keyCount, mergeBlocks } from '../engine/strategies.js';
import type { Block, HiSource, ReserveRequest, StoredKeyColumn } from '../engine/types.js';
import { catalogOf } from './catalogs.js';
import { columnType, requireShareableSequence, sequenceShape } from './shape.js';
import {
  createTableIfMissing,
  createItHint,
  guarded,
  peerStoredKeys,
  requireDialect,
  setting,
  type InteropPreset,
} from './shared.js';
import { DIALECTS } from '../dialects/index.js';
import { configurationErrors, mismatchErrors, sourceErrors } from '../error-messages.js';

/**
 * Hibernate's optimizers (`org.hibernate.id.enhanced`), each reading a database value `v` as a block of
 * `n` = `increment_size` keys:
 * - `pooled` (`PooledOptimizer`): Hibernate 5+ hands out `v − n + 1 … v`, Hibernate 3.6 `v − n … v − 1`; hilo
 *   claims only `v − n + 1 … v − 1`, the keys no version uses, so one key in `n` stays unused but neither
 *   generation can collide (the value equal to `initial_value` stands for no key here). Hibernate 3.6's first
 *   block is `v₁ … v₂ − 1` for its first two fetches, which covers whatever was fetched in between: no one
 *   can share safely while a 3.6 node starts;
 * - `pooled-lo` (`PooledLoOptimizer`): `v … v + n − 1`;
 * - `hilo` (`HiLoOptimizer`): `(v − 1)·n + 1 … v·n`, values below 1 skipped;
 * - `legacy-hilo` (`LegacyHiLoAlgorithmOptimizer`): `v·(n + 1) … v·(n + 1) + n`, key 0 skipped.
 * The pooled ones advance the database value by `n`, `hilo` and `legacy-hilo` by 1.
 */
export type HibernateOptimizer = 'pooled' | 'pooled-lo' | 'hilo' | 'legacy-hilo';

const OPTIMIZERS: readonly HibernateOptimizer[] = ['pooled', 'pooled-lo', 'hilo', 'legacy-hilo'];

function checkOptimizer(value: unknown): HibernateOptimizer {
  if (!(OPTIMIZERS as readonly unknown[]).includes(value)) {
    throw HiLoConfigurationError.invalidOption('optimizer', OPTIMIZERS.map((o) => `"${o}"`).join(', '), value);
  }
  return value as HibernateOptimizer;
}

/** How far one fetch moves the sequence or row: `increment_size` for the pooled optimizers, else 1. */
function stepOf(optimizer: HibernateOptimizer, incrementSize: bigint): bigint {
  return optimizer === 'pooled' || optimizer === 'pooled-lo' ? incrementSize : 1n;
}

/**
 * The keys Hibernate's optimizer hands out for one value `value` of the sequence or table (what its
 * `AccessCallback.getNextValue()` returned), never below 1; `undefined` when the value stands for no key.
 *
 * @example
 * ```ts
 * hibernateBlock('pooled', 101n, 50n, 1n); // { first: 52n, last: 100n }
 * hibernateBlock('hilo', 3n, 50n, 1n);     // { first: 101n, last: 150n }
 * ```
 */
export function hibernateBlock(
  optimizer: HibernateOptimizer,
  value: bigint,
  incrementSize: bigint,
  initialValue: bigint,
): Block | undefined {
  return blockFromValue(`hibernate-${optimizer}`, value, incrementSize, initialValue);
}

/**
 * Keys hilo takes from one value: `n + 1` for legacy-hilo, `n − 1` for pooled (see {@link hibernateBlock}),
 * else `n`. Pooled with `n` = 1 leaves nothing that every Hibernate version leaves free, so it is refused.
 */
function keysPerValueOf(optimizer: HibernateOptimizer, incrementSize: number): number {
  if (optimizer === 'legacy-hilo') return incrementSize + 1;
  if (optimizer === 'pooled') {
    if (incrementSize < 2) {
      throw configurationErrors.pooledIncrementTooSmall(incrementSize);
    }
    return incrementSize - 1;
  }
  return incrementSize;
}

function sorted(blocks: readonly Block[]): Block[] {
  return mergeBlocks([...blocks].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0)));
}

/**
 * What most likely differs when Hibernate's keys lie above what the preset reads from a value (`ahead`) or
 * below it (`behind`), in the words of Hibernate's settings and the preset's options.
 */
function likelyCauses(
  optimizer: HibernateOptimizer,
  incrementSize: number,
  storeLastUsed?: boolean,
): { ahead: string[]; behind: string[] } {
  const size =
    optimizer === 'legacy-hilo'
      ? `max_lo (seqhilo/hilo; allocationSize − 1 of a JPA @SequenceGenerator without new_generator_mappings)`
      : `increment_size (allocationSize)`;
  const ahead = [`Hibernate's ${size} is larger than \`incrementSize: ${incrementSize}\``];
  const behind = [`Hibernate's ${size} is smaller than \`incrementSize: ${incrementSize}\``];
  if (optimizer === 'pooled') {
    ahead.push(
      `Hibernate uses pooled-lo (hibernate.id.optimizer.pooled.prefer_lo=true, or optimizer=pooled-lo) where the ` +
        `preset has \`optimizer: 'pooled'\``,
    );
  } else if (optimizer === 'pooled-lo') {
    behind.push(`Hibernate uses pooled (its default optimizer) where the preset has \`optimizer: 'pooled-lo'\``);
  } else {
    for (const list of [ahead, behind]) list.push(`Hibernate's optimizer is not \`optimizer: '${optimizer}'\``);
  }
  if (storeLastUsed === true) {
    behind.push(
      `the row holds the next value (Hibernate 3.x–5.2, or hibernate.id.generator.stored_last_used=false) where the ` +
        `preset has \`storeLastUsed: true\``,
    );
  } else if (storeLastUsed === false) {
    ahead.push(
      `the row holds the last value handed out (Hibernate ≥ 5.3, stored_last_used=true) where the preset has ` +
        `\`storeLastUsed: false\``,
    );
  }
  return { ahead, behind };
}

/**
 * From a table row Hibernate's pooled optimizers only ever read `initial_value` plus a multiple of
 * `increment_size` (the row starts there and moves by the increment): any other value was written by a
 * Hibernate set up differently (or is read with another meaning, `storeLastUsed`), so it is refused before a key
 * of it is handed out. Returns the error, or `undefined` when the value fits. (A sequence's values say nothing
 * more: INCREMENT BY is checked, and whoever created it chose its START WITH.)
 */
function unalignedValue(
  optimizer: HibernateOptimizer,
  value: bigint,
  incrementSize: bigint,
  initialValue: bigint,
  describe: { preset: string; what: string; settings: string; causes: readonly string[] },
): HiLoMismatchError | undefined {
  if (optimizer !== 'pooled' && optimizer !== 'pooled-lo') return undefined;
  const offset = value - initialValue;
  if (offset % incrementSize === 0n) return undefined;
  return mismatchErrors.unalignedValue(describe, value, initialValue, incrementSize, offset);
}

/** Options of {@link hibernateSequencePreset}; each mirrors a `@SequenceGenerator` / `SequenceStyleGenerator` parameter. */
export interface HibernateSequencePresetOptions {
  /**
   * The optimizer (`optimizer` parameter, or `hibernate.id.optimizer.pooled.preferred`).
   * @default 'pooled'
   */
  readonly optimizer?: HibernateOptimizer;
  /**
   * `allocationSize` / `increment_size`.
   * @default 50
   */
  readonly incrementSize?: number;
  /**
   * `initialValue` / `initial_value`: the sequence's START WITH. The pooled optimizer hands out the value
   * equal to it as a block of one key. A value other than 1 needs `create: false` (create the sequence as
   * Hibernate's schema export does, `start with <initialValue>`).
   * @default 1
   */
  readonly initialValue?: number;
  /**
   * The sequence of a segment (`sequenceName`). Hibernate 6+ defaults to `<entity>_SEQ`; PostgreSQL folds
   * unquoted names to lower case, MariaDB keeps the case.
   * @default (segment) => `${segment}_seq`
   */
  readonly sequenceName?: (segment: string) => string;
  /** The sequences' schema (database on MariaDB); default: the connection's. */
  readonly schema?: string;
  /**
   * Whether hilo creates a missing sequence (INCREMENT BY `incrementSize` for the pooled optimizers, 1 for
   * `hilo` and `legacy-hilo`).
   * @default true
   */
  readonly create?: boolean;
  /**
   * The tables and key columns (primary or unique keys) each segment's keys are stored in, as
   * `createHiLo({ storedKeys })` takes them.
   * Every block is then checked before its first key is handed out; a key Hibernate stored inside it means the
   * two sides read the sequence with different settings, and the segment is refused with a `HiLoMismatchError`
   * naming them (see "Verified blocks" in README-interop). Without it only the sequence's INCREMENT BY is
   * checked.
   * @default none
   * @example
   * ```ts
   * hibernateSequencePreset(client, { storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }] })
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[];
}

/**
 * Shares Hibernate's sequence generator (`SequenceStyleGenerator` on a sequence, any of its four hi/lo
 * optimizers) on PostgreSQL or MariaDB ≥ 10.3: hilo takes `nextval` values and reads each with the
 * optimizer's own formula ({@link hibernateBlock}), and checks the sequence's INCREMENT BY as Hibernate does.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...hibernateSequencePreset(client, { incrementSize: 50 }), adaptive: false });
 * ```
 */
export function hibernateSequencePreset(
  client: SqlClient,
  options: HibernateSequencePresetOptions = {},
): InteropPreset {
  const optimizer = checkOptimizer(options.optimizer ?? 'pooled');
  const incrementSize = checkInteger('incrementSize', options.incrementSize ?? 50);
  const keysPerValue = keysPerValueOf(optimizer, incrementSize);
  const initialValue = checkInteger('initialValue', options.initialValue ?? 1);
  const create = options.create ?? true;
  if (create && initialValue !== 1) {
    throw configurationErrors.initialValueNeedsCreateFalse(
      initialValue,
      Number(stepOf(optimizer, BigInt(incrementSize))),
    );
  }
  const dialect = requireDialect(client, 'Hibernate sequence generator', ['postgres', 'mysql']);
  const nameOf = options.sequenceName ?? ((segment: string) => `${segment}_seq`);
  const schema = options.schema;
  const n = BigInt(incrementSize);
  const pooled = optimizer === 'pooled' || optimizer === 'pooled-lo';
  // the core source checks (and creates) the sequence: INCREMENT BY n for the pooled optimizers, 1 otherwise
  const checker = sequenceSource(client, {
    increment: incrementSize,
    fixedIncrement: 'incrementSize',
    strategy: pooled ? optimizer : 'hilo',
    name: nameOf,
    ...(schema === undefined ? {} : { schema }),
    create,
  });
  const iv = BigInt(initialValue);
  const settings = [
    setting('optimizer', optimizer, options.optimizer),
    setting('incrementSize', incrementSize, options.incrementSize),
    setting('initialValue', initialValue, options.initialValue),
  ].join(', ');
  const causes = likelyCauses(optimizer, incrementSize);
  const verified = peerStoredKeys(client, options.storedKeys, {
    preset: 'hibernateSequencePreset',
    peer: 'Hibernate',
    store: (segment) => `sequence ${nameOf(segment)}`,
    settings,
    ...causes,
  });
  const missingHint = (quoted: string) =>
    createItHint(
      `Create it as Hibernate's schema export does (create sequence ${quoted} start with ${initialValue} ` +
        `increment by ${Number(stepOf(optimizer, n))})`,
    );

  async function nextValues(quoted: string, count: number): Promise<bigint[]> {
    return (await catalogOf(client).nextValues(client, quoted, count)).map((value) => toBigInt(value, 'nextval'));
  }

  /** The sequence source's check, with what it finds explained in Hibernate's terms and this preset's options. */
  const checked = new Set<string>();
  async function prepare(segment: string, signal?: AbortSignal): Promise<void> {
    if (checked.has(segment)) return;
    const name = validateIdentifier('sequence', nameOf(validateSegment(segment)));
    const quoted = qualifiedName(DIALECTS[dialect], 'sequence', name, schema);
    // Hibernate 3.x–5.2's MySQL dialects keep a table where a sequence would be (the database's
    // `sequencesMayBeTables`: MariaDB before 10.3 and MySQL have no sequences)
    if (
      DIALECTS[dialect].sequencesMayBeTables &&
      !['sequence', 'missing'].includes((await sequenceShape(client, { table: name, schema })).kind)
    ) {
      throw mismatchErrors.hibernateSequenceIsTable(quoted);
    }
    await requireShareableSequence(
      client,
      'hibernateSequencePreset',
      { table: name, schema },
      quoted,
      'Point `sequenceName` (and `schema`) at the sequence of your @SequenceGenerator / hibernate_sequence.',
    );
    try {
      await checker.prepare(segment, signal);
    } catch (error) {
      if (!(error instanceof HiLoError) || error.code !== 'HILO_MISMATCH') throw error;
      const actual = await sequenceShape(client, { table: name, schema }).then(
        (shape) => shape.increment,
        () => undefined,
      );
      if (actual === undefined) throw error;
      throw mismatchErrors.hibernateIncrement(quoted, actual, optimizer, incrementSize, stepOf(optimizer, n));
    }
    checked.add(segment);
  }

  const source: HiSource = {
    description: `${dialect} Hibernate sequence generator (${optimizer}, increment_size ${incrementSize})`,
    prepare: (segment, signal) => prepare(segment, signal),
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      await prepare(segment, request.signal);
      const quoted = qualifiedName(
        DIALECTS[dialect],
        'sequence',
        validateIdentifier('sequence', nameOf(validateSegment(segment))),
        schema,
      );
      const blocks: Block[] = [];
      // a value may stand for fewer keys (below 1 or initial_value): top up until the request is met
      while (keyCount(blocks) < BigInt(request.size)) {
        const missing = Number(BigInt(request.size) - keyCount(blocks));
        const values = await guarded(
          client,
          request.signal,
          `reserving keys for "${segment}" from sequence ${quoted}`,
          missingHint(quoted),
          () => nextValues(quoted, incrementsFor(missing, keysPerValue)),
        );
        blocks.push(...keyArithmetic.blocksFromValues(`hibernate-${optimizer}`, values, n, iv));
      }
      return sorted(blocks);
    },
  };
  return { source, blockSize: keysPerValue, ...verified };
}

/** Options of {@link hibernateTablePreset}; each mirrors a `@TableGenerator` / `TableGenerator` parameter. */
export interface HibernateTablePresetOptions {
  /**
   * The optimizer (`optimizer` parameter, or `hibernate.id.optimizer.pooled.preferred`).
   * @default 'pooled'
   */
  readonly optimizer?: HibernateOptimizer;
  /**
   * `table`.
   * @default 'hibernate_sequences'
   */
  readonly table?: string;
  /** `schema` (database on MariaDB); default: the connection's. */
  readonly schema?: string;
  /**
   * `pkColumnName` / `segment_column_name`.
   * @default 'sequence_name'
   */
  readonly segmentColumn?: string;
  /**
   * `valueColumnName` / `value_column_name`.
   * @default 'next_val'
   */
  readonly valueColumn?: string;
  /**
   * `pkColumnValue` / `segment_value` of a segment.
   * @default (segment) => segment
   */
  readonly segmentValue?: (segment: string) => string;
  /**
   * `allocationSize` / `increment_size`.
   * @default 50
   */
  readonly incrementSize?: number;
  /**
   * Hibernate's `initial_value` parameter: the first value a new row hands out. JPA's
   * `@TableGenerator(initialValue = i)` sets it to `i + 1` (so the annotation's default 0 is 1 here).
   * @default 1
   */
  readonly initialValue?: number;
  /**
   * `hibernate.id.generator.stored_last_used` (Hibernate ≥ 5.3 default `true`): the row holds the last value
   * handed out, and a fetch returns the stored value + 1. With `false` the row holds the next value.
   * @default true
   */
  readonly storeLastUsed?: boolean;
  /**
   * Whether hilo creates the table and a segment's row when missing (the row as Hibernate inserts it).
   * @default true
   */
  readonly create?: boolean;
  /**
   * The tables and key columns (primary or unique keys) each segment's keys are stored in, as
   * `createHiLo({ storedKeys })` takes them.
   * Every block is then checked before its first key is handed out; a key Hibernate stored inside it means the
   * two sides read the row with different settings, and the segment is refused with a `HiLoMismatchError`
   * naming them (see "Verified blocks" in README-interop). Without it only the table's shape and the values'
   * step are checked.
   * @default none
   * @example
   * ```ts
   * hibernateTablePreset(client, { storedKeys: [{ segment: 'orders', table: 'orders', column: 'id' }] })
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[];
}

/**
 * Shares Hibernate's table generator (`org.hibernate.id.enhanced.TableGenerator`:
 * `hibernate_sequences(sequence_name, next_val)`, one row per segment) on PostgreSQL or MariaDB: in a
 * transaction of its own hilo reads the row with `select … for update`, writes it with a compare-and-set
 * update (retrying until one row changes), and reads the values with the optimizer's formula
 * ({@link hibernateBlock}), honouring `stored_last_used` and `initial_value`.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...hibernateTablePreset(client), adaptive: false });
 * ```
 */
export function hibernateTablePreset(client: SqlClient, options: HibernateTablePresetOptions = {}): InteropPreset {
  const optimizer = checkOptimizer(options.optimizer ?? 'pooled');
  const incrementSize = checkInteger('incrementSize', options.incrementSize ?? 50);
  const keysPerValue = keysPerValueOf(optimizer, incrementSize);
  const initialValue = checkInteger('initialValue', options.initialValue ?? 1);
  const storeLastUsed = options.storeLastUsed ?? true;
  if (typeof storeLastUsed !== 'boolean')
    throw HiLoConfigurationError.invalidOption('storeLastUsed', 'a boolean', storeLastUsed);
  const dialectName: SqlDialect = requireDialect(client, 'Hibernate table generator', ['postgres', 'mysql']);
  const d = DIALECTS[dialectName];
  const table = qualifiedName(DIALECTS[dialectName], 'table', options.table ?? 'hibernate_sequences', options.schema);
  const seg = d.quote(validateIdentifier('segmentColumn', options.segmentColumn ?? 'sequence_name'));
  const val = d.quote(validateIdentifier('valueColumn', options.valueColumn ?? 'next_val'));
  const segmentValue = options.segmentValue ?? ((segment: string) => segment);
  const create = options.create ?? true;
  const n = BigInt(incrementSize);
  const step = stepOf(optimizer, n);
  const iv = BigInt(initialValue);
  // what Hibernate inserts for a new row, and how a stored value becomes the value its optimizer reads
  const rowStart = storeLastUsed ? iv - 1n : iv;
  const valueOf = (stored: bigint) => (storeLastUsed ? stored + 1n : stored);
  const engine = DIALECTS[dialectName].tableSuffix;
  const ddl = `create table if not exists ${table} (${seg} varchar(255) not null primary key, ${val} bigint)${engine}`;
  const hint = createItHint(`Create it as Hibernate does: ${ddl.replace(' if not exists', '')}`);
  const description = `${dialectName} Hibernate table generator ${table} (${optimizer}, increment_size ${incrementSize})`;
  const insertRow = catalogOf(client).insertUnlessExists(table, seg, val);
  const settings = [
    setting('optimizer', optimizer, options.optimizer),
    setting('incrementSize', incrementSize, options.incrementSize),
    setting('initialValue', initialValue, options.initialValue),
    setting('storeLastUsed', storeLastUsed, options.storeLastUsed),
  ].join(', ');
  const verified = peerStoredKeys(client, options.storedKeys, {
    preset: 'hibernateTablePreset',
    peer: 'Hibernate',
    store: (segment) => `row ${JSON.stringify(segmentValue(segment))} of ${table}`,
    settings,
    ...likelyCauses(optimizer, incrementSize, storeLastUsed),
  });
  /** Segments refused for a value no Hibernate with these settings writes: refused for good. */
  const refused = new Map<string, HiLoMismatchError>();
  const alignmentCauses = [
    `Hibernate's increment_size (allocationSize) is not \`incrementSize: ${incrementSize}\``,
    storeLastUsed
      ? `the row holds the next value (Hibernate 3.x–5.2, or stored_last_used=false) where the preset has ` +
        `\`storeLastUsed: true\``
      : `the row holds the last value handed out (Hibernate ≥ 5.3) where the preset has \`storeLastUsed: false\``,
    `Hibernate's initial_value is not \`initialValue: ${initialValue}\``,
  ];

  function keyOf(segment: string): string {
    return validateSegment(segmentValue(validateSegment(segment)));
  }

  const rawTable = options.table ?? 'hibernate_sequences';
  const rawSeg = options.segmentColumn ?? 'sequence_name';
  const rawVal = options.valueColumn ?? 'next_val';

  /**
   * The enhanced TableGenerator's table has a bigint value column and the segment column as primary key.
   * Hibernate 3.x/4.x map JPA's `@TableGenerator` (without `hibernate.id.new_generator_mappings`) to
   * MultipleHiLoPerTableGenerator instead: an int column holding a hi value and no primary key, where the
   * stored number means something else. Reading that as a pooled value hands out keys Hibernate used.
   */
  async function checkShape(): Promise<void> {
    const ref = { table: rawTable, schema: options.schema };
    const type = await columnType(client, ref, rawVal);
    const keyColumns = await catalogOf(client).primaryKeyColumns(client, ref);
    const pk = keyColumns.length === 1 && keyColumns[0]!.toLowerCase() === rawSeg.toLowerCase();
    const problems: string[] = [];
    if (type === undefined) problems.push(`it has no column ${val}`);
    else if (type !== 'bigint') problems.push(`${val} is ${type}, not bigint`);
    if (!pk) problems.push(`${seg} is not its primary key`);
    if (problems.length > 0) {
      throw mismatchErrors.hibernateTableShape(table, problems);
    }
  }

  let shapeChecked: Promise<void> | undefined;
  function ensureShape(): Promise<void> {
    shapeChecked ??= checkShape().catch((error: unknown) => {
      shapeChecked = undefined;
      throw error;
    });
    return shapeChecked;
  }

  async function ensureRow(key: string, signal?: AbortSignal): Promise<void> {
    await guarded(client, signal, `preparing ${description}`, hint, async () => {
      if (create) await createTableIfMissing(client, ddl);
      await ensureShape();
      if (create) {
        await client.query(insertRow, [key, String(rowStart)]);
      } else {
        const { rows } = await client.query(`select 1 from ${table} where ${seg} = ${d.placeholder(1)}`, [key]);
        if (rows.length === 0) {
          throw sourceErrors.hibernateRowMissing(description, key, rowStart);
        }
      }
    });
  }

  const source: HiSource = {
    description,
    async prepare(segment: string, signal: AbortSignal): Promise<void> {
      await ensureRow(keyOf(segment), signal);
    },
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      const key = keyOf(segment);
      const refusal = refused.get(segment);
      if (refusal !== undefined) throw refusal;
      // never hand out a key from a table whose shape says its values mean something else
      await guarded(client, request.signal, `checking ${description}`, hint, ensureShape);
      const blocks: Block[] = [];
      while (keyCount(blocks) < BigInt(request.size)) {
        const missing = Number(BigInt(request.size) - keyCount(blocks));
        const count = BigInt(incrementsFor(missing, keysPerValue));
        const stored = await guarded(
          client,
          request.signal,
          `reserving keys for "${segment}" from ${description}`,
          hint,
          () =>
            client.transaction(async (tx) => {
              for (;;) {
                const { rows } = await tx.query<{ v: unknown }>(
                  `select ${d.asText(val)} as v from ${table} where ${seg} = ${d.placeholder(1)} for update`,
                  [key],
                );
                if (rows[0] === undefined) throw sourceErrors.hibernateRowGone(description, key);
                if (rows[0].v === null) throw sourceErrors.hibernateValueNull(description, val, key);
                const current = toBigInt(rows[0].v, val);
                // checked before the row moves: a value of other settings is refused, and the transaction rolls back
                const unaligned = unalignedValue(optimizer, valueOf(current), n, iv, {
                  preset: 'hibernateTablePreset',
                  what: `row ${JSON.stringify(key)} of ${table} holds ${current}, read as value`,
                  settings,
                  causes: alignmentCauses,
                });
                if (unaligned !== undefined) {
                  refused.set(segment, unaligned);
                  throw unaligned;
                }
                const cast = DIALECTS[dialectName].asSigned;
                const updated = await tx.query(
                  `update ${table} set ${val} = ${cast(d.placeholder(1))} where ${val} = ${cast(d.placeholder(2))} ` +
                    `and ${seg} = ${d.placeholder(3)}`,
                  [String(current + step * count), String(current), key],
                );
                if (updated.affectedRows === 1) return current;
              }
            }),
        );
        // Hibernate would have fetched these one by one: value, value + step, …
        const first = valueOf(stored);
        const values = Array.from({ length: Number(count) }, (_, i) => first + step * BigInt(i));
        blocks.push(...keyArithmetic.blocksFromValues(`hibernate-${optimizer}`, values, n, iv));
      }
      return sorted(blocks);
    },
  };
  return { source, blockSize: keysPerValue, ...verified };
}
