import { HiLoConfigurationError, describe } from '../errors.js';
import type { SqlDialect } from './sql-client.js';
import { DIALECTS } from '../dialects/index.js';

/** What a SQL identifier may look like: a letter or `_`, then letters, digits or `_`, at most 63 characters. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Longest segment name a hi table stores (its `segment` column is `varchar(255)`). */
export const MAX_SEGMENT_LENGTH = 255;

/**
 * Checks a table, schema, column or sequence name against {@link IDENTIFIER_PATTERN}; names never reach SQL
 * unless they pass, so a hostile name cannot become SQL text.
 *
 * @example
 * ```ts
 * validateIdentifier('table', 'hilo_segments'); // returns 'hilo_segments'
 * validateIdentifier('table', 'x"; drop table t; --'); // throws HiLoConfigurationError
 * ```
 */
export function validateIdentifier(role: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER_PATTERN.test(value)) {
    throw new HiLoConfigurationError(
      `Expected ${role} name to match ${IDENTIFIER_PATTERN} (a letter or "_", then letters, digits or "_", at most 63 characters), got ${describe(value)}.`,
    );
  }
  return value;
}

/**
 * Checks a segment name that is stored as a value (a row of a hi table): any non-empty string of at most
 * {@link MAX_SEGMENT_LENGTH} characters without control characters. It travels as a query parameter, never as SQL text.
 */
export function validateSegment(value: unknown, name = 'segment'): string {
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_SEGMENT_LENGTH || /[\u0000-\u001f]/.test(value)) {
    throw new HiLoConfigurationError(
      `Expected \`${name}\` to be a non-empty name of at most ${MAX_SEGMENT_LENGTH} characters without control characters, e.g. "orders", got ${describe(value)}.`,
    );
  }
  return value;
}

/** Quotes an identifier (already validated) for `dialect`: `"name"` on PostgreSQL/SQLite, `` `name` `` on MySQL. */
export function quoteIdentifier(dialect: SqlDialect, name: string): string {
  return DIALECTS[dialect].quote(name);
}

/** Validates and quotes `schema.name` (or `name` without a schema) for `dialect`. */
export function qualifiedName(dialect: SqlDialect, role: string, name: string, schema?: string): string {
  const quoted = quoteIdentifier(dialect, validateIdentifier(role, name));
  return schema === undefined ? quoted : `${quoteIdentifier(dialect, validateIdentifier('schema', schema))}.${quoted}`;
}
