import { checkInteger } from '../engine/checks.js';
import { sequenceSource } from '../operations/sources.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { HiSource, StoredKeyColumn } from '../engine/types.js';
import { once, requireShareableSequence } from './shape.js';
import { guarded, peerStoredKeys, requirePostgres, setting, type InteropPreset } from './shared.js';

/** Options of {@link efCorePreset}; each mirrors EF Core's `UseHiLo(name, schema)` and the sequence's INCREMENT BY. */
export interface EfCorePresetOptions {
  /**
   * The sequence EF Core reads (`UseHiLo("name")`).
   * @default 'EntityFrameworkHiLoSequence'
   */
  readonly sequence?: string;
  /** The sequence's schema (`UseHiLo(name, schema)`); default: the connection's. */
  readonly schema?: string;
  /**
   * The sequence's INCREMENT BY (EF Core's `HasSequence(...).IncrementsBy(n)`).
   * @default 10
   */
  readonly incrementBy?: number;
  /**
   * Whether hilo creates the sequence when missing (as EF Core's migration would: start 1, INCREMENT BY n).
   * @default true
   */
  readonly create?: boolean;
  /**
   * The tables and key columns (primary or unique keys) each segment's keys are stored in, as
   * `createHiLo({ storedKeys })` takes them.
   * Every block is then checked before its first key is handed out; a key EF Core stored inside it means the two
   * sides read the sequence with different settings, and the segment is refused with a `HiLoMismatchError` naming
   * them (see "Verified blocks" in README-interop).
   * @default none
   * @example
   * ```ts
   * efCorePreset(client, { storedKeys: [{ segment: 'orders', table: 'Orders', column: 'Id' }] })
   * ```
   */
  readonly storedKeys?: readonly StoredKeyColumn[];
}

/** EF Core's default hi/lo sequence name. */
export const EF_CORE_SEQUENCE = 'EntityFrameworkHiLoSequence';

/**
 * Shares EF Core's (Npgsql) hi/lo sequence: every `nextval` value `v` is the block `[v, v + incrementBy)`,
 * exactly as EF Core's `HiLoValueGenerator` reads it, so both draw from one key space. All segments use
 * the one sequence, as EF Core does by default. Before any key is handed out the shape is checked: the name must
 * be a sequence (not a table or view), must not CYCLE, and its INCREMENT BY must equal `incrementBy` (efcore.pg
 * #843); anything else is refused with a `HiLoMismatchError`. PostgreSQL only
 * (EF Core's hi/lo is the Npgsql provider's): any other client fails here with a `HiLoConfigurationError`.
 *
 * @example
 * ```ts
 * const hilo = createHiLoGenerator({ ...efCorePreset(pgClient(pool)), adaptive: false });
 * ```
 */
export function efCorePreset(client: SqlClient, options: EfCorePresetOptions = {}): InteropPreset {
  const incrementBy = checkInteger('incrementBy', options.incrementBy ?? 10);
  requirePostgres(client, 'EF Core (Npgsql)');
  const sequence = options.sequence ?? EF_CORE_SEQUENCE;
  const sequences = sequenceSource(client, {
    increment: incrementBy,
    fixedIncrement: 'incrementBy',
    strategy: 'pooled-lo',
    name: () => sequence,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.create === undefined ? {} : { create: options.create }),
  });
  const display = options.schema === undefined ? `"${sequence}"` : `"${options.schema}"."${sequence}"`;
  const checkShape = once(() =>
    requireShareableSequence(
      client,
      'efCorePreset',
      { table: sequence, schema: options.schema },
      display,
      `Point \`sequence\` (and \`schema\`) at the sequence EF Core's UseHiLo() reads.`,
    ),
  );
  const shaped = (signal?: AbortSignal) =>
    guarded(client, signal, `checking EF Core sequence ${display}`, undefined, checkShape);
  const verified = peerStoredKeys(client, options.storedKeys, {
    preset: 'efCorePreset',
    peer: 'EF Core',
    store: () => `sequence ${display}`,
    settings: setting('incrementBy', incrementBy, options.incrementBy),
    // EF Core takes the block size from its model, not from the sequence (efcore.pg #843)
    ahead: [
      `EF Core's model has a larger IncrementsBy (HasSequence(...).IncrementsBy) than the sequence's ${incrementBy}`,
    ],
    behind: [`EF Core's model has a smaller IncrementsBy than the sequence's ${incrementBy}`],
  });
  const source: HiSource = {
    description: `EF Core (Npgsql) hi/lo sequence ${display}`,
    async prepare(segment, signal) {
      await shaped(signal);
      await sequences.prepare?.(segment, signal);
    },
    async reserve(segment, request) {
      await shaped(request.signal);
      return sequences.reserve(segment, request);
    },
  };
  return { source, blockSize: incrementBy, ...verified };
}
