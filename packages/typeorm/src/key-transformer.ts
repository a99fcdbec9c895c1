import type { ValueTransformer } from 'typeorm';
import { HiLoConfigurationError, HiLoOverflowError } from 'hilo-core';
import { installationCounter } from 'hilo-core/adapter-kit';

function toDatabase(value: unknown): unknown {
  // bigint as text: both pg and mysql2 accept it for bigint columns, and precision is never lost.
  return typeof value === 'bigint' ? value.toString() : value;
}

function parse(value: unknown): bigint | null | undefined {
  if (value === null || value === undefined) return value;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new HiLoConfigurationError(
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a driver's column value (string, number, Buffer), shown as it reads
    `A hi/lo key column returned ${JSON.stringify(String(value))}, which is not an integer; hilo keys must be bigint or int columns.`,
  );
}

/**
 * Column transformer that reads bigint/int keys as JavaScript numbers (TypeORM returns bigint columns as
 * strings). Use it on foreign-key columns that point at a `@HiLoGeneratedColumn()`, which does not inherit it.
 * Keys above `Number.MAX_SAFE_INTEGER` fail with `HiLoOverflowError`: use {@link hiloBigIntKeyTransformer}.
 * @example
 * ```ts
 * @Column({ type: 'bigint', transformer: hiloKeyTransformer }) customerId!: number;
 * ```
 */
export const hiloKeyTransformer: ValueTransformer = {
  to: toDatabase,
  from(value: unknown): number | null | undefined {
    const key = parse(value);
    if (key === null || key === undefined) return key;
    if (key > BigInt(Number.MAX_SAFE_INTEGER) || key < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new HiLoOverflowError(
        `Key ${key} is beyond Number.MAX_SAFE_INTEGER; declare the column with keyType: 'bigint' (and ` +
          `hiloBigIntKeyTransformer on foreign keys).`,
      );
    }
    return Number(key);
  },
};

/**
 * Column transformer that reads bigint keys as JavaScript bigints. Use it on foreign-key columns that point
 * at a `@HiLoGeneratedColumn({ keyType: 'bigint' })`.
 * @example
 * ```ts
 * @Column({ type: 'bigint', transformer: hiloBigIntKeyTransformer }) customerId!: bigint;
 * ```
 */
export const hiloBigIntKeyTransformer: ValueTransformer = {
  to: toDatabase,
  from: parse,
};

/** The transformer for a key type. */
export function keyTransformer(keyType: 'number' | 'bigint'): ValueTransformer {
  return keyType === 'bigint' ? hiloBigIntKeyTransformer : hiloKeyTransformer;
}

/** Key columns with a live installation, by their transformer (an entity may serve several DataSources). */
export const installedKeyColumns = installationCounter<ValueTransformer>('hilo-typeorm.installed-key-columns');

/**
 * The transformer of one hi/lo key column (`where` names it, e.g. `Order.id`): the key type's, plus the check
 * for a forgotten installation. TypeORM passes the column's value through `to()` when it writes a row, and
 * hilo has assigned the key by then wherever it is installed; a key still missing there, while no DataSource
 * has hilo installed for this column, means the DataSource writing the row was never wrapped. That is a hilo
 * error naming the line that installs it, instead of the database's NOT NULL or default-value error.
 * (A query's `where` never passes `undefined` through `to()`: TypeORM drops undefined conditions.)
 */
export function keyColumnTransformer(keyType: 'number' | 'bigint', where: string): ValueTransformer {
  const base = keyTransformer(keyType);
  const transformer: ValueTransformer = {
    to(value: unknown): unknown {
      if (value === undefined && !installedKeyColumns.has(transformer)) {
        throw new HiLoConfigurationError(
          `${where} is a hi/lo key, but a row is being written without one through a DataSource that hilo is ` +
            `not installed on, so nothing assigned it. Install hilo where the DataSource is created: ` +
            `\`withHiLo(new DataSource(options))\` before \`initialize()\` (import { withHiLo } from ` +
            `'hilo-typeorm'), or \`await installHiLo(dataSource)\` after it; with @nestjs/typeorm, ` +
            `\`dataSourceFactory: hiloDataSourceFactory()\` in TypeOrmModule.forRootAsync().`,
        );
      }
      return base.to(value);
    },
    from: (value: unknown): unknown => base.from(value),
  };
  return transformer;
}
