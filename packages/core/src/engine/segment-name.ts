import { configurationErrors } from '../error-messages.js';

/** Longest segment name a hi table stores (its `segment` column is `varchar(255)`). */
export const MAX_SEGMENT_LENGTH = 255;

/**
 * Checks a segment name that is stored as a value (a row of a hi table): any non-empty string of at most
 * {@link MAX_SEGMENT_LENGTH} characters without control characters. It travels as a query parameter, never as SQL text.
 */
export function validateSegment(value: unknown, name = 'segment'): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_SEGMENT_LENGTH ||
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    /[\u0000-\u001f]/.test(value)
  ) {
    throw configurationErrors.invalidSegmentName(name, MAX_SEGMENT_LENGTH, value);
  }
  return value;
}
