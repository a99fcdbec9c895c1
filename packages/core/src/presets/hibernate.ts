import { HiLoConfigurationError, HiLoSourceError } from '../errors.js';
import { qualifiedName, validateIdentifier, validateSegment } from '../identifiers.js';
import { sequenceSource } from '../sql/sources.js';
import type { SqlClient } from '../sql/sql-client.js';
import { toBigInt } from '../sql/table-source.js';
import { blocksFromValues, incrementsFor } from '../strategies.js';
import type { Block, HiSource, ReserveRequest } from '../types.js';
import { guarded, positiveInteger, requirePostgres, type InteropPreset } from './shared.js';

/**
 * Hibernate optimizers hilo can share a key space with: `pooled` (the value is the block's last key),
 * `pooled-lo` (its first key) and `legacy-hilo` (a hi advanced by 1: keys `hi × (incrementSize + 1) + 0…incrementSize`,
 * key 0 skipped). Hibernate's plain `hilo` optimizer is not supported.
 */
export type HibernateOptimizer = 'pooled' | 'pooled-lo' | 'legacy-hilo';

/** Options of {@link hibernateSequencePreset}; each mirrors a `@SequenceGenerator` / `hibernate.id.optimizer` setting. */
export interface HibernateSequencePresetOptions {
  /**
   * The optimizer (`hibernate.id.optimizer.pooled.preferred`, `@GenericGenerator(optimizer)`).
   * @default 'pooled'
   */
  readonly optimizer?: HibernateOptimizer;
  /**
   * `allocationSize` / `increment_size`.
   * @default 50
   */
  readonly incrementSize?: number;
  /**
   * The sequence of a segment (`sequenceName`). Hibernate 6+ defaults to `<entity>_SEQ`, which PostgreSQL
   * folds to lower case.
   * @default (segment) => `${segment}_seq`
   */
  readonly sequenceName?: (segment: string) => string;
  /** The sequences' schema; default: the connection's. */
  readonly schema?: string;
  /**
   * Whether hilo creates a missing sequence (Hibernate's `hbm2ddl` would create `start with 1 increment by n`).
   * @default true
   */
  readonly create?: boolean;
}

/**
 * Shares Hibernate's sequence generator (`@SequenceGenerator` with the pooled, pooled-lo or legacy-hilo
 * optimizer): hilo reads each `nextval` with the optimizer's own block formula and checks the sequence's
 * INCREMENT BY as Hibernate does.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...hibernateSequencePreset(client, { incrementSize: 50 }), adaptive: false });
 * ```
 */
export function hibernateSequencePreset(client: SqlClient, options: HibernateSequencePresetOptions = {}): InteropPreset {
  const optimizer = options.optimizer ?? 'pooled';
  if (!['pooled', 'pooled-lo', 'legacy-hilo'].includes(optimizer)) {
    throw HiLoConfigurationError.invalidOption('optimizer', '"pooled", "pooled-lo" or "legacy-hilo"', optimizer);
  }
  const incrementSize = positiveInteger('incrementSize', options.incrementSize ?? 50);
  const nameOf = options.sequenceName ?? ((segment: string) => `${segment}_seq`);
  // legacy-hilo: maxLo = incrementSize, so each hi stands for incrementSize + 1 keys (core's `hilo` formula)
  const increment = optimizer === 'legacy-hilo' ? incrementSize + 1 : incrementSize;
  const source = sequenceSource(client, {
    increment,
    strategy: optimizer === 'legacy-hilo' ? 'hilo' : optimizer,
    name: nameOf,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.create === undefined ? {} : { create: options.create }),
  });
  return { source, blockSize: increment };
}

/** Options of {@link hibernateTablePreset}; each mirrors a `@TableGenerator` parameter. */
export interface HibernateTablePresetOptions {
  /**
   * `pooled` (the stored value read is the block's last key) or `pooled-lo` (its first key).
   * @default 'pooled'
   */
  readonly optimizer?: Exclude<HibernateOptimizer, 'legacy-hilo'>;
  /**
   * `table`.
   * @default 'hibernate_sequences'
   */
  readonly table?: string;
  /** `schema`; default: the connection's. */
  readonly schema?: string;
  /**
   * `pkColumnName`.
   * @default 'sequence_name'
   */
  readonly segmentColumn?: string;
  /**
   * `valueColumnName`.
   * @default 'next_val'
   */
  readonly valueColumn?: string;
  /**
   * `pkColumnValue` of a segment.
   * @default (segment) => segment
   */
  readonly segmentValue?: (segment: string) => string;
  /**
   * `allocationSize` / `increment_size`.
   * @default 50
   */
  readonly incrementSize?: number;
  /**
   * `initialValue`: the value a new row starts with.
   * @default 1
   */
  readonly initialValue?: number;
  /**
   * Whether hilo creates the table and a segment's row when missing.
   * @default true
   */
  readonly create?: boolean;
}

/**
 * Shares Hibernate's table generator (`hibernate_sequences(sequence_name, next_val)`, one row per segment):
 * in a transaction of its own, hilo reads `next_val` with `select … for update`, writes
 * `next_val + increment` with a compare-and-set update (retrying until it changes one row), and reads the value
 * with the pooled or pooled-lo formula, as Hibernate's `TableGenerator` does. PostgreSQL only.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...hibernateTablePreset(client), adaptive: false });
 * ```
 */
export function hibernateTablePreset(client: SqlClient, options: HibernateTablePresetOptions = {}): InteropPreset {
  requirePostgres(client, 'Hibernate table generator');
  const optimizer = options.optimizer ?? 'pooled';
  if (optimizer !== 'pooled' && optimizer !== 'pooled-lo') throw HiLoConfigurationError.invalidOption('optimizer', '"pooled" or "pooled-lo"', optimizer);
  const incrementSize = positiveInteger('incrementSize', options.incrementSize ?? 50);
  const initialValue = positiveInteger('initialValue', options.initialValue ?? 1, Number.MIN_SAFE_INTEGER);
  const table = qualifiedName('postgres', 'table', options.table ?? 'hibernate_sequences', options.schema);
  const seg = `"${validateIdentifier('segmentColumn', options.segmentColumn ?? 'sequence_name')}"`;
  const val = `"${validateIdentifier('valueColumn', options.valueColumn ?? 'next_val')}"`;
  const segmentValue = options.segmentValue ?? ((segment: string) => segment);
  const create = options.create ?? true;
  const increment = BigInt(incrementSize);
  const hint = `Create it as Hibernate does: create table ${table} (${seg} varchar(255) not null primary key, ${val} bigint), or pass \`create: true\`.`;
  const description = `postgres Hibernate table generator ${table}`;

  async function ensureRow(key: string, signal?: AbortSignal): Promise<void> {
    await guarded(client, signal, `preparing ${description}`, hint, async () => {
      if (create) {
        await client.query(`create table if not exists ${table} (${seg} varchar(255) not null primary key, ${val} bigint)`).catch(async (error: unknown) => {
          // a concurrent `create table if not exists` may lose the catalog race; the table exists then
          const { rows } = await client.query<{ t: string | null }>('select to_regclass($1)::text as t', [table]);
          if (rows[0]?.t == null) throw error;
        });
        await client.query(`insert into ${table} (${seg}, ${val}) values ($1, $2) on conflict (${seg}) do nothing`, [key, initialValue]);
      } else {
        const { rows } = await client.query(`select 1 from ${table} where ${seg} = $1`, [key]);
        if (rows.length === 0) throw new HiLoSourceError(`${description} has no row ${JSON.stringify(key)}. Insert (${JSON.stringify(key)}, ${initialValue}) or pass \`create: true\`.`);
      }
    });
  }

  const source: HiSource = {
    description,
    async prepare(segment: string, signal: AbortSignal): Promise<void> {
      await ensureRow(validateSegment(segmentValue(validateSegment(segment))), signal);
    },
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      const key = validateSegment(segmentValue(validateSegment(segment)));
      const count = incrementsFor(request.size, incrementSize);
      const value = await guarded(client, request.signal, `reserving keys for "${segment}" from ${description}`, hint, () =>
        client.transaction(async (tx) => {
          for (;;) {
            const { rows } = await tx.query<{ v: unknown }>(`select ${val}::text as v from ${table} where ${seg} = $1 for update`, [key]);
            if (rows[0] === undefined) throw new HiLoSourceError(`${description} has no row ${JSON.stringify(key)}. Pass \`create: true\` or insert it.`);
            const current = toBigInt(rows[0].v, val);
            const updated = await tx.query(`update ${table} set ${val} = $1 where ${val} = $2 and ${seg} = $3`, [
              String(current + increment * BigInt(count)),
              String(current),
              key,
            ]);
            if (updated.affectedRows === 1) return current;
          }
        }),
      );
      // Hibernate would have read value, value + increment, … one by one: one block per value
      const values = Array.from({ length: count }, (_, i) => value + increment * BigInt(i));
      return blocksFromValues(optimizer, values, increment);
    },
  };
  return { source, blockSize: incrementSize };
}
