import type { HiLoGeneratorOptions, KeyType, SqlClient } from 'hilo-core';
import type { HiSourceLayout, PassedGeneratorOptions } from 'hilo-core/adapter-kit';
import type { AnyKeyGenerator } from './runtime.js';

/** Options of {@link HiLo.configure}. */
export interface HiLoOptions
  extends
    Omit<HiLoGeneratorOptions<KeyType>, 'source' | 'storedKeys'>,
    Pick<PassedGeneratorOptions, 'verifyBlocks' | 'onMissingTable' | 'onUnreadableKeys'>,
    Omit<HiSourceLayout, 'schema'> {
  /**
   * A generator to use instead of one built from the ORM's connection. It is not closed with the ORM.
   * @default one built from the ORM's connection settings
   * @example
   * ```ts
   * HiLo.configure({ generator: createHiLoGenerator({ source: memorySource() }) })
   * ```
   */
  generator?: AnyKeyGenerator;
  /**
   * The database connection reservations run on, instead of a small pool of its own built from the ORM's
   * connection settings. Never the EntityManager's transaction.
   * @default a pool of `poolSize` connections opened with the ORM's connection settings
   * @example
   * ```ts
   * HiLo.configure({ client: pgClient(new pg.Pool({ connectionString })) })
   * ```
   */
  client?: SqlClient;
  /**
   * Schema of the sequences or hi table.
   * @default the ORM's `schema` option, else the connection's default schema
   */
  schema?: string;
  /**
   * Connections in the pool reservations run on (when neither `client` nor `generator` is given).
   * @default 2
   */
  poolSize?: number;
}
