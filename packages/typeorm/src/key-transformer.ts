import type { ValueTransformer } from 'typeorm';
import { configurationErrors, overflowErrors } from './error-messages.js';

function toDatabase(value: unknown): unknown {
  // bigint as text: both pg and mysql2 accept it for bigint columns, and precision is never lost.
  return typeof value === 'bigint' ? value.toString() : value;
}

function parse(value: unknown): bigint | null | undefined {
  if (value === null || value === undefined) return value;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw configurationErrors.keyNotInteger(value);
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
      throw overflowErrors.keyBeyondSafeInteger(key);
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

/** Where a checking key transformer keeps its installed form (a registered symbol: both builds of the package share it). */
const INSTALLED_FORM = Symbol.for('hilo-typeorm.installed-form');

/**
 * The transformer of one hi/lo key column (`where` names it, e.g. `Order.id`): the key type's, plus the check
 * for a forgotten installation. TypeORM passes the column's value through `to()` when it writes a row. Every
 * DataSource builds its column metadata with this transformer, and installing hilo on a DataSource swaps it,
 * on that DataSource's metadata only, for its {@link installedForm} (the same conversions without the check):
 * so a key still missing here is a row written through a DataSource hilo is not installed on, and that is a
 * hilo error naming the line that installs it, instead of the database's NOT NULL error (or SQLite's rowid).
 * (A query's `where` never passes `undefined` through `to()`: TypeORM drops undefined conditions.)
 */
export function keyColumnTransformer(keyType: 'number' | 'bigint', where: string): ValueTransformer {
  const base = keyTransformer(keyType);
  const installed: ValueTransformer = { to: base.to, from: base.from };
  return {
    to(value: unknown): unknown {
      if (value === undefined) {
        throw configurationErrors.notInstalledOnWrite(where);
      }
      return base.to(value);
    },
    from: base.from,
    [INSTALLED_FORM]: installed,
  } as ValueTransformer;
}

/** What a column declared with a hi/lo key uses on a DataSource hilo is installed on, or `undefined` for any other transformer. */
export function installedForm(transformer: unknown): ValueTransformer | undefined {
  return (transformer as Partial<Record<symbol, ValueTransformer>> | undefined)?.[INSTALLED_FORM];
}
