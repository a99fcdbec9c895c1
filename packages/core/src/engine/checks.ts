import { HiLoConfigurationError } from '../errors.js';

/** Bounds for {@link checkInteger}; both inclusive. */
export interface IntegerBounds {
  /** Smallest value accepted; 1 unless given. */
  readonly min?: number;
  /** Largest value accepted; `Number.MAX_SAFE_INTEGER` unless given. */
  readonly max?: number;
}

/**
 * Returns `value` when it is a safe integer within `bounds`, else throws a `HiLoConfigurationError` that names
 * the option (`name`, as the caller spelled it), the accepted range and the value received. The one integer
 * check of every hilo package: options, counts, block sizes and preset settings all go through it, so every
 * such error reads the same way.
 */
export function checkInteger(name: string, value: unknown, bounds: IntegerBounds = {}): number {
  const min = bounds.min ?? 1;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  const expected = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
  throw HiLoConfigurationError.invalidOption(name, expected, value);
}

/** The largest block a generator or source takes in one reservation (a 32-bit signed int). */
export const MAX_BLOCK_SIZE = 2 ** 31 - 1;
