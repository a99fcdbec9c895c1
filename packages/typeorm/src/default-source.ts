import { HiLoConfigurationError, type HiSource, type SqlClient } from 'hilo-core';

/** Options for the hi source installHiLo() builds when none is given. */
export interface DefaultSourceOptions {
  readonly kind: 'sequence' | 'table' | undefined;
  readonly table: string | undefined;
  readonly schema: string | undefined;
  readonly blockSize: number | undefined;
}

/** The sequence (PostgreSQL) or table (elsewhere) source from hilo-core. */
export function defaultSource(_client: SqlClient, _options: DefaultSourceOptions): HiSource {
  // TEMPORARY until hilo-core exports its SQL sources.
  throw new HiLoConfigurationError('hilo-core SQL sources are not available yet; pass `source: (client) => …`.');
}
