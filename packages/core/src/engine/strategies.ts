import { HiLoConfigurationError } from '../errors.js';
import type { Block } from './types.js';

/**
 * How the value a database returns maps to a block of keys, so hilo can share a schema with other tools:
 * - `pooled-lo`: the value is the first key, the block `[v, v + increment - 1]` (EF Core, Hibernate pooled-lo);
 * - `pooled`: the value is the last key, the block `[v - increment + 1, v]` (Hibernate pooled);
 * - `hilo`: the value is a hi counter advanced by 1, the block `[hi × maxLo, hi × maxLo + maxLo - 1]`
 *   with `maxLo` = increment (classic hi/lo; key 0 is never handed out);
 * - `range`: the stored value is the last reserved key (`Max`); a reservation is `[Max + 1, Max + size]`
 *   and returned keys go back by compare-and-set (RavenDB).
 */
export type HiLoStrategy = 'pooled-lo' | 'pooled' | 'hilo' | 'range';

/** Every strategy, for validation and messages. */
export const STRATEGIES: readonly HiLoStrategy[] = ['pooled-lo', 'pooled', 'hilo', 'range'];

/** Throws a HiLoConfigurationError unless `value` is one of `allowed`. */
export function validateStrategy<S extends HiLoStrategy>(value: unknown, allowed: readonly S[], where: string): S {
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw HiLoConfigurationError.invalidOption(
      'strategy',
      `one of ${allowed.map((s) => `"${s}"`).join(', ')} for ${where}`,
      value,
    );
  }
  return value as S;
}

/**
 * Every formula hilo reads a stored value with: its own strategies, and those of the systems the presets
 * share a schema with (Hibernate's four optimizers, Marten). Hibernate's, for a value `v` and `n` =
 * `increment_size`: `pooled` claims `v − n + 1 … v − 1` (what Hibernate 3.6, `v − n … v − 1`, and 5+,
 * `v − n + 1 … v`, both leave free), `pooled-lo` `v … v + n − 1`, `hilo` `(v − 1)·n + 1 … v·n`, `legacy-hilo`
 * `v·(n + 1) … v·(n + 1) + n`. Marten's, for a hi `h` and `maxLo`: `h·maxLo + 1 … h·maxLo + maxLo`.
 */
export type KeyFormula =
  HiLoStrategy | 'hibernate-pooled' | 'hibernate-pooled-lo' | 'hibernate-hilo' | 'hibernate-legacy-hilo' | 'marten';

/**
 * The block of keys one value stands for. `increment` is the block size (`maxLo` for `hilo` and Marten; the
 * size of the reservation for `range`; Hibernate's `increment_size`). Keys below 1, and for Hibernate's
 * `pooled` keys below `initialValue`, are never handed out: the block is clipped, and `undefined` means it
 * held no usable key.
 *
 * @example
 * ```ts
 * blockFromValue('hilo', 2n, 1000n); // { first: 2000n, last: 2999n }
 * blockFromValue('hibernate-pooled', 101n, 50n); // { first: 52n, last: 100n }
 * ```
 */
export function blockFromValue(
  formula: KeyFormula,
  value: bigint,
  increment: bigint,
  initialValue = 1n,
): Block | undefined {
  if (increment < 1n) throw HiLoConfigurationError.invalidOption('increment', 'a positive integer', increment);
  let first: bigint;
  let last: bigint;
  switch (formula) {
    case 'pooled-lo':
    case 'hibernate-pooled-lo':
      first = value;
      last = value + increment - 1n;
      break;
    case 'pooled':
    case 'range':
      first = value - increment + 1n;
      last = value;
      break;
    case 'hilo':
      first = value * increment;
      last = first + increment - 1n;
      break;
    case 'hibernate-pooled':
      // Nothing of this optimizer lies below initial_value, so clipping there never gives away a used key.
      first = value - increment + 1n;
      last = value - 1n;
      if (first < initialValue) first = initialValue;
      break;
    case 'hibernate-hilo':
      if (value < 1n) return undefined;
      first = (value - 1n) * increment + 1n;
      last = value * increment;
      break;
    case 'hibernate-legacy-hilo':
      first = value * (increment + 1n);
      last = first + increment;
      break;
    case 'marten':
      first = value * increment + 1n;
      last = value * increment + increment;
      break;
  }
  if (first < 1n) first = 1n;
  return first <= last ? { first, last } : undefined;
}

/**
 * Blocks for several values of one sequence or row (one per increment), sorted ascending, adjacent blocks
 * merged, empty ones dropped.
 */
export function blocksFromValues(
  formula: KeyFormula,
  values: readonly bigint[],
  increment: bigint,
  initialValue = 1n,
): Block[] {
  const blocks = values
    .map((value) => blockFromValue(formula, value, increment, initialValue))
    .filter((block): block is Block => block !== undefined)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  return mergeBlocks(blocks);
}

/** The formulas whose stored value is a hi counter advanced by 1: consecutive his stand for adjacent blocks. */
export type HiFormula = 'hilo' | 'marten' | 'hibernate-hilo' | 'hibernate-legacy-hilo';

/**
 * Blocks for every hi from `from` to `to` (a row advanced by several his at once): one block, computed from
 * its ends without listing the his, equal to {@link blocksFromValues} of all of them.
 */
export function blocksFromValueRange(
  formula: HiFormula,
  from: bigint,
  to: bigint,
  increment: bigint,
  initialValue = 1n,
): Block[] {
  if (from > to) return [];
  const last = blockFromValue(formula, to, increment, initialValue);
  if (last === undefined) return [];
  // values near 0 may stand for no key (keys below 1 are clipped): start at the first that stands for one
  let value = from;
  let first = blockFromValue(formula, value, increment, initialValue);
  while (first === undefined && value < to) first = blockFromValue(formula, ++value, increment, initialValue);
  return [{ first: (first ?? last).first, last: last.last }];
}

/** Merges sorted blocks that touch (`a.last + 1 === b.first`) into one. */
export function mergeBlocks(sorted: readonly Block[]): Block[] {
  const merged: Block[] = [];
  for (const block of sorted) {
    const previous = merged.at(-1);
    if (previous && previous.last + 1n === block.first)
      merged[merged.length - 1] = { first: previous.first, last: block.last };
    else merged.push(block);
  }
  return merged;
}

/** How many increments of `increment` keys cover `size` keys. */
export function incrementsFor(size: number, increment: number): number {
  return Math.max(1, Math.ceil(size / increment));
}

/** Number of keys in some blocks. */
export function keyCount(blocks: readonly Block[]): bigint {
  return blocks.reduce((sum, block) => sum + block.last - block.first + 1n, 0n);
}

/**
 * Giving back the unused tail of the last block of a row (`pooled-lo`: the row holds the next free key;
 * `range`: the last reserved key) as a compare-and-set: `value = set WHERE value = expect`. If another
 * process reserved after us the value differs and nothing changes. `hilo` cannot give keys back.
 *
 * @example
 * ```ts
 * releaseTail('range', { first: 2n, last: 32n }); // { expect: 32n, set: 1n }: key 1 was used, 2–32 come back
 * ```
 */
export function releaseTail(strategy: HiLoStrategy, unused: Block): { expect: bigint; set: bigint } | undefined {
  if (unused.first > unused.last) return undefined;
  if (strategy === 'pooled-lo') return { expect: unused.last + 1n, set: unused.first };
  if (strategy === 'range') return { expect: unused.last, set: unused.first - 1n };
  return undefined;
}

/**
 * The smallest value the next reservation may be based on so that every key it hands out is above
 * `maxKey`: the next value of a `pooled-lo`/`pooled` sequence or `pooled-lo` row, the next hi of `hilo`, the
 * stored `Max` of `range`.
 */
export function floorValue(strategy: HiLoStrategy, maxKey: bigint, increment: bigint): bigint {
  const max = maxKey < 0n ? 0n : maxKey;
  switch (strategy) {
    case 'pooled-lo':
      return max + 1n;
    case 'pooled':
      return max + increment;
    case 'range':
      return max;
    case 'hilo':
      // key 0 is never handed out, so hi 0 stays usable while nothing exists above 0
      return max === 0n ? 0n : max / increment + 1n;
  }
}

/**
 * The first key the next reservation hands out, from the value it will be based on (`position`, with
 * {@link floorValue}'s meaning: a sequence's next `nextval`, a row's stored value) — read without reserving, e.g.
 * by `hilo check`. Keys below 1 are never handed out, so the first is at least 1. The store is ahead of a stored
 * key `k` exactly when `k < nextFirstKey(…)`, i.e. when `position >= floorValue(strategy, k, increment)`.
 *
 * @example
 * ```ts
 * nextFirstKey('pooled', 200n, 100n); // 101n: a `pooled` value is the last key of its block
 * nextFirstKey('range', 30n, 10n); // 31n: a `range` row holds the last key reserved
 * ```
 */
export function nextFirstKey(strategy: HiLoStrategy, position: bigint, increment: bigint): bigint {
  let first: bigint;
  switch (strategy) {
    case 'pooled-lo':
      first = position;
      break;
    case 'pooled':
      first = position - increment + 1n;
      break;
    case 'range':
      first = position + 1n;
      break;
    case 'hilo':
      first = position * increment;
      break;
  }
  return first < 1n ? 1n : first;
}

/**
 * The one place key arithmetic runs: every source and preset reads its database values through these
 * functions, called through this object, so that a test can watch them (and a fix lands everywhere at once).
 */
export const keyArithmetic = {
  blockFromValue,
  blocksFromValues,
  blocksFromValueRange,
  releaseTail,
  floorValue,
  nextFirstKey,
};
