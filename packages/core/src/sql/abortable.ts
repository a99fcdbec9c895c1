import { HiLoError } from '../errors.js';
import { timeoutErrors } from '../error-messages.js';

function abortError(signal: AbortSignal, action: string): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof HiLoError) return reason;
  return timeoutErrors.aborted(action, reason);
}

/**
 * Resolves with `work` unless `signal` aborts first; then rejects at once (the database may still finish
 * the statement: the caller treats the outcome as unknown and discards it).
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, action: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError(signal, action));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal, action));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
