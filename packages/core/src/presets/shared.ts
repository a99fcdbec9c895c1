import { HiLoConfigurationError } from '../errors.js';
import { abortable } from '../sql/abortable.js';
import { toHiLoError } from '../sql/driver-errors.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { HiSource } from '../types.js';

/**
 * What every preset returns: a source that reads and writes the other system's schema with its formula,
 * and the block size that matches the other system's increment (pass both to `createHiLoGenerator`).
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...efCorePreset(client), adaptive: false });
 * ```
 */
export interface InteropPreset {
  /** The hi source speaking the other system's schema. */
  readonly source: HiSource;
  /** The other system's increment (keys per database round trip); use it as the generator's `blockSize`. */
  readonly blockSize: number;
}

/** Throws unless `value` is a positive safe integer. */
export function positiveInteger(name: string, value: unknown, min = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw HiLoConfigurationError.invalidOption(name, `an integer ≥ ${min}`, value);
  }
  return value;
}

/** Throws unless the client speaks PostgreSQL (the table presets are written and tested for it only). */
export function requirePostgres(client: SqlClient, preset: string): void {
  if (client?.dialect !== 'postgres') {
    throw new HiLoConfigurationError(
      `The ${preset} preset supports PostgreSQL only, got a client of dialect ${JSON.stringify(client?.dialect)}. Pass a pgClient(pool) or a postgres:// connection.`,
    );
  }
}

/** Runs one reservation with the signal honoured and driver errors mapped to hilo's typed errors. */
export async function guarded<T>(client: SqlClient, signal: AbortSignal | undefined, action: string, missingHint: string, work: () => Promise<T>): Promise<T> {
  try {
    return await abortable(work(), signal, action);
  } catch (error) {
    throw toHiLoError(error, { dialect: client.dialect, action, missingHint });
  }
}
