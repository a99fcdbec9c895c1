import type { Dialect } from './dialect.js';
import { configurationErrors } from '../error-messages.js';

/** What a SQL identifier may look like: a letter or `_`, then letters, digits or `_`, at most 63 characters. */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

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
    throw configurationErrors.invalidIdentifier(role, IDENTIFIER_PATTERN, value);
  }
  return value;
}

/** Validates and quotes `schema.name` (or `name` without a schema) for `dialect`. */
export function qualifiedName(dialect: Dialect, role: string, name: string, schema?: string): string {
  const quoted = dialect.quote(validateIdentifier(role, name));
  return schema === undefined ? quoted : `${dialect.quote(validateIdentifier('schema', schema))}.${quoted}`;
}
