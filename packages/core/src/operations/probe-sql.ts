import type { StoredKeyKind } from '../engine/types.js';
import type { Dialect } from '../sql/dialect.js';
import type { StoredKeyProbeRules } from '../sql/stored-key-probe-rules.js';

export {
  escapeRegExp,
  type ColumnFacts,
  type ProbeTarget,
  type StoredKeyProbeRules,
} from '../sql/stored-key-probe-rules.js';
import { SIGNED_64_MAX } from '../sql/stored-key-probe-rules.js';

/** One statement and its parameters. */
export interface ProbeQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * The statements of one stored-key column, for the way its keys are written: `largest` reads the largest key,
 * `within` and `count` the keys inside a block. `within` and `count` give one statement per number of digits the
 * block spans (one, unless it crosses 999 → 1000), the longest first; a number probe always gives one.
 */
export interface ProbeSql {
  /** How the keys are compared: `'number'` (a numeric column), `'string'` (digits in text), `'format'`. */
  readonly compare: StoredKeyKind;
  readonly largest: ProbeQuery;
  within(first: bigint, last: bigint): readonly ProbeQuery[];
  count(first: bigint, last: bigint): readonly ProbeQuery[];
}

/**
 * A block split by number of digits, the longest first: `[95, 104]` → `[100, 104]` (3 digits), `[95, 99]`
 * (2 digits). Keys written as decimal text without leading zeros sort by (length, text), so that each piece is a
 * plain text range among strings of one length: a B-tree index on the text column serves it.
 */
export function byDigits(first: bigint, last: bigint): { digits: number; low: string; high: string }[] {
  const pieces: { digits: number; low: string; high: string }[] = [];
  const from = first < 1n ? 1n : first;
  if (last < from) return pieces;
  for (let digits = String(last).length; digits >= String(from).length; digits--) {
    const smallest = 10n ** BigInt(digits - 1);
    const largest = 10n ** BigInt(digits) - 1n;
    const low = from > smallest ? from : smallest;
    const high = last < largest ? last : largest;
    if (low <= high) pieces.push({ digits, low: String(low), high: String(high) });
  }
  return pieces;
}

/**
 * Builds the probe statements of one column. A numeric column (or one whose type could not be read, with kind
 * `'number'`) keeps the plain `max(col)` and `between` probes, the bounds cast to a signed integer. Digits in a
 * text column are compared as numbers: the largest is the longest, then the largest text
 * (`order by length(col) desc, col desc`), and a block is a text range per number of digits, which an index on
 * the column serves (equal-length strings of digits sort alike in every collation). Formatted ids are parsed
 * per row (`formatNumber`), and no index on the column serves that.
 *
 * A numeric probe's range ends at `maxValue`, the largest value the column's type holds (a signed 64-bit integer
 * when unknown): no row holds a key above it, and PostgreSQL refuses a bound its column cannot hold (`value
 * "2147483701" is out of range for type integer`), so a block that reaches past an `integer` column's maximum is
 * probed up to that maximum, and one wholly above it needs no statement at all.
 */
export function buildProbeSql(
  dialect: Dialect,
  rules: StoredKeyProbeRules,
  table: string,
  column: string,
  compare: StoredKeyKind,
  prefix: string,
  maxValue: bigint = SIGNED_64_MAX,
): ProbeSql {
  const p = (n: number) => dialect.placeholder(n);
  if (compare === 'number') {
    const top = maxValue < SIGNED_64_MAX ? maxValue : SIGNED_64_MAX;
    const clamped = (sql: string) => (first: bigint, last: bigint) =>
      first > top ? [] : [{ sql, params: [first, last < top ? last : top] }];
    const range = `${column} between ${dialect.asSigned(p(1))} and ${dialect.asSigned(p(2))}`;
    const within = `select ${dialect.asText(`max(${column})`)} as m from ${table} where ${range}`;
    const count = `select ${dialect.asText('count(*)')} as m from ${table} where ${range}`;
    return {
      compare,
      largest: { sql: `select ${dialect.asText(`max(${column})`)} as m from ${table}`, params: [] },
      within: clamped(within),
      count: clamped(count),
    };
  }
  // `n`: the key as decimal text; `from`: where it is read, with only the rows holding such a key
  const [n, from] =
    compare === 'string'
      ? [dialect.asText(column), `${table} where ${rules.isDecimal(column)}`]
      : ['k.n', `(select ${rules.formatNumber(column, prefix)} as n from ${table}) k where k.n is not null`];
  // for text keys the range is on the column itself, so that an index on it is used
  const ranged = compare === 'string' ? column : 'k.n';
  // placeholders numbered in the order they appear: MariaDB/MySQL and SQLite bind `?` by position, not by number
  const piece = `${rules.length(ranged)} = ${p(1)} and ${ranged} between ${p(2)} and ${p(3)}`;
  const within = `select ${compare === 'string' ? dialect.asText(`max(${column})`) : 'max(k.n)'} as m from ${from} and ${piece}`;
  const count = `select ${dialect.asText('count(*)')} as m from ${from} and ${piece}`;
  const pieces = (sql: string) => (first: bigint, last: bigint) =>
    byDigits(first, last).map(({ digits, low, high }) => ({ sql, params: [digits, low, high] }));
  return {
    compare,
    largest: {
      sql: `select ${n} as m from ${from} order by ${rules.length(ranged)} desc, ${ranged} desc limit 1`,
      params: [],
    },
    within: pieces(within),
    count: pieces(count),
  };
}

/** The prefix a formatted id of `segment` starts with by default: `nextFullId()`'s, the segment and `/`. */
export function defaultPrefix(
  segment: string,
  format?: { separator?: string; prefix?: (segment: string) => string },
): string {
  return `${(format?.prefix ?? ((s: string) => s))(segment)}${format?.separator ?? '/'}`;
}
