// Keys as the ORM's fields hold them: the conversion every adapter uses, and the largest key a column type holds.
import { HiLoConfigurationError } from '../errors.js';
import { overflowErrors } from '../error-messages.js';

/** How a key is stored in a field: a JavaScript number, a bigint, or a decimal string. */
export type KeyField = 'number' | 'bigint' | 'string';

/** What a key field holds beyond its JavaScript type, and how the adapter tells its user to widen it. */
export interface KeyFieldLimits {
  /** The largest key the column holds (an int column: 2^31 − 1); a larger key is refused. */
  readonly maxKey?: bigint;
  /** The column for messages, e.g. `"an Int"` or `"an int column"`. */
  readonly column?: string;
  /** How to make the column hold larger keys, in the adapter's terms, e.g. `"make the field BigInt"`. */
  readonly widen?: string;
  /** How to declare the field as a bigint, in the adapter's terms, e.g. `"declare it with keyType: 'bigint'"`. */
  readonly asBigint?: string;
}

/**
 * A key as the field wants it. Refuses, with {@link HiLoOverflowError}, a key above the column's `maxKey`
 * (the database would reject or wrap it) and a key beyond `Number.MAX_SAFE_INTEGER` for a `number` field
 * (DESIGN rule 4: a rounded key would collide). The one conversion every adapter uses.
 *
 * @param where - names the field in the message, e.g. `"orders.id"`.
 */
export function keyToField(
  key: number | bigint,
  as: KeyField,
  where: string,
  limits: KeyFieldLimits = {},
): number | bigint | string {
  // number and bigint compare exactly in JavaScript: no conversion on the hot path
  if (limits.maxKey !== undefined && key > limits.maxKey) {
    throw overflowErrors.keyAboveMax(key, where, limits.column, limits.maxKey, limits.widen);
  }
  switch (as) {
    case 'bigint':
      return BigInt(key);
    case 'string':
      return String(key);
    case 'number': {
      if (typeof key === 'number') return key;
      if (key > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw overflowErrors.keyBeyondSafeInteger(key, where, limits.asBigint);
      }
      return Number(key);
    }
    default:
      throw HiLoConfigurationError.invalidOption('keyType', '"number", "bigint" or "string"', as);
  }
}

/** The largest value a signed SQL `bigint` (PostgreSQL `int8`, MySQL/MariaDB `BIGINT`) holds: 2^63 − 1. */
export const BIGINT_MAX = 9_223_372_036_854_775_807n;

/** Signed SQL integer column types by the names databases and ORMs use, and the largest value each holds. */
const INTEGER_COLUMN_MAXIMA: Readonly<Record<string, bigint>> = {
  tinyint: 127n,
  smallint: 32_767n,
  int2: 32_767n,
  mediumint: 8_388_607n,
  int: 2_147_483_647n,
  integer: 2_147_483_647n,
  int4: 2_147_483_647n,
  bigint: BIGINT_MAX,
  int8: BIGINT_MAX,
};

/**
 * The largest key a column of SQL type `type` holds (`int` → 2,147,483,647), or `undefined` when `type` is
 * not a signed integer type. Case and a display width (`int(11)`) are ignored. The one table behind every
 * adapter's column limits and the CLI's `--max-key int`.
 * @example
 * ```ts
 * columnTypeMaxKey('INT(11)') // 2147483647n
 * ```
 */
export function columnTypeMaxKey(type: string): bigint | undefined {
  const name = type.toLowerCase().replace(/\(.*$/, '').trim();
  return Object.hasOwn(INTEGER_COLUMN_MAXIMA, name) ? INTEGER_COLUMN_MAXIMA[name] : undefined;
}
