import type { ValueTransformer } from 'typeorm';
import { HiLoConfigurationError, HiLoOverflowError } from 'hilo-core';

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
