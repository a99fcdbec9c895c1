import { HiLoConfigurationError } from './errors.js';
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
    throw HiLoConfigurationError.invalidOption('strategy', `one of ${allowed.map((s) => `"${s}"`).join(', ')} for ${where}`, value);
  }
  return value as S;
}

/**
 * The block of keys one value stands for. `increment` is the block size (`maxLo` for `hilo`; the size of
 * the reservation for `range`). Keys below 1 are never handed out: the block is clipped, and `undefined`
 * means it held no usable key.
 *
 * @example
 * ```ts
 * blockFromValue('hilo', 2n, 1000n); // { first: 2000n, last: 2999n }
 * ```
 */
export function blockFromValue(strategy: HiLoStrategy, value: bigint, increment: bigint): Block | undefined {
  if (increment < 1n) throw HiLoConfigurationError.invalidOption('increment', 'a positive integer', increment);
  let first: bigint;
  let last: bigint;
  switch (strategy) {
    case 'pooled-lo':
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
  }
  if (first < 1n) first = 1n;
  return first <= last ? { first, last } : undefined;
}

/**
 * Blocks for several values of one sequence or row (one per increment), sorted ascending, adjacent blocks
 * merged, empty ones dropped.
 */
export function blocksFromValues(strategy: HiLoStrategy, values: readonly bigint[], increment: bigint): Block[] {
  const blocks = values
    .map((value) => blockFromValue(strategy, value, increment))
    .filter((block): block is Block => block !== undefined)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  return mergeBlocks(blocks);
}

/** Merges sorted blocks that touch (`a.last + 1 === b.first`) into one. */
export function mergeBlocks(sorted: readonly Block[]): Block[] {
  const merged: Block[] = [];
  for (const block of sorted) {
    const previous = merged.at(-1);
    if (previous && previous.last + 1n === block.first) merged[merged.length - 1] = { first: previous.first, last: block.last };
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
 * `range` reservation: with `Max` the last reserved key, reserves `[Max + 1, Max + size]` and the new `Max`.
 *
 * @example
 * ```ts
 * rangeReserve(0n, 32n); // { block: { first: 1n, last: 32n }, max: 32n }
 * ```
 */
export function rangeReserve(max: bigint, size: bigint): { block: Block; max: bigint } {
  if (size < 1n) throw HiLoConfigurationError.invalidOption('size', 'a positive integer', size);
  return { block: { first: max + 1n, last: max + size }, max: max + size };
}

/**
 * `range` return of unused keys: the compare-and-set that gives back `unused` (the tail of the last block).
 * Apply `Max = set WHERE Max = expect`; if another process reserved after us, `Max` differs and nothing changes.
 *
 * @example
 * ```ts
 * rangeRelease({ first: 2n, last: 32n }); // { expect: 32n, set: 1n }: key 1 was used, 2–32 come back
 * ```
 */
export function rangeRelease(unused: Block): { expect: bigint; set: bigint } {
  return { expect: unused.last, set: unused.first - 1n };
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
