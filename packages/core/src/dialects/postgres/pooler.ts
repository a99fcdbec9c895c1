import { configurationErrors } from '../../error-messages.js';

/** What PgBouncer answers a `BEGIN` with in statement pooling mode (SQLSTATE 08P01, protocol violation). */
const STATEMENT_POOLING = /transaction blocks not allowed in statement pooling mode/i;

/**
 * Whether a driver error is PgBouncer refusing a transaction because its pool runs in statement mode: a
 * setting, not an outage, so it is never retried (its SQLSTATE, 08P01, otherwise reads as a lost connection).
 */
export function isStatementPooling(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && STATEMENT_POOLING.test(message);
}

/**
 * `error` as hilo's typed error when it is PgBouncer's statement-mode refusal, naming the setting and its fix;
 * otherwise `error` unchanged. What needs a transaction on hilo's connection: `hilo init --guard`, `hilo floor`
 * and `hilo alter` on a sequence, table-source set-up, and a transaction the application asks hilo's client for.
 */
export function explainPoolerError(error: unknown): unknown {
  if (!isStatementPooling(error)) return error;
  return configurationErrors.statementPooling(error);
}
