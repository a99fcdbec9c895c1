import type { SequenceSourceOptions } from '../sources/sequence-source.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import { sequenceSource, tableSource, type SqlSourceKind } from './sources.js';
import type { TableSourceOptions } from '../sources/table-source.js';
import { DIALECTS } from '../dialects/index.js';
import { configurationErrors } from '../error-messages.js';
import { columnRegistry } from './column-registry.js';

/** What {@link schemaSql} and {@link ensureSchema} create. */
export interface SchemaOptions
  extends Omit<TableSourceOptions, 'strategy'>, Partial<Omit<SequenceSourceOptions, 'strategy'>> {
  /**
   * Sequences (one per segment) or a hi table.
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind;
  /** The segments to create: a sequence each, or a row each in the table. */
  readonly segments: readonly string[];
  /** Strategy of the sequences or the table (decides start values and INCREMENT BY). */
  readonly strategy?: 'pooled-lo' | 'pooled' | 'range' | 'hilo';
  /**
   * Sequences: INCREMENT BY (the block size). Table with `hilo`: keys per hi.
   * @default 100 for sequences, 1000 for hilo tables
   */
  readonly increment?: number;
}

/** Default INCREMENT BY of sequences created without an explicit increment (the generator's default block size). */
export const DEFAULT_SEQUENCE_INCREMENT = 100;

const unused = (dialect: SqlDialect): SqlClient => ({
  dialect,
  query: () => Promise.reject(new Error('schemaSql does not run SQL')),
  transaction: () => Promise.reject(new Error('schemaSql does not run SQL')),
  close: () => Promise.resolve(),
});

function buildSource(client: SqlClient, options: SchemaOptions) {
  const kind = options.source ?? DIALECTS[client.dialect].defaultSource;
  if (kind === 'sequence') {
    if (options.strategy === 'range') throw configurationErrors.rangeNeedsTable();
    return sequenceSource(client, {
      increment: options.increment ?? DEFAULT_SEQUENCE_INCREMENT,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
      create: true,
    });
  }
  if (options.strategy === 'pooled') throw configurationErrors.pooledOnTable();
  return tableSource(client, { ...options, strategy: options.strategy, create: true });
}

/**
 * The SQL that creates what a source needs (a sequence per segment, or the hi table and a row per
 * segment), idempotent (`if not exists`), for migration files.
 *
 * @example
 * ```ts
 * schemaSql({ dialect: 'postgres', source: 'table', segments: ['orders'] }).join(';\n');
 * ```
 */
export function schemaSql(options: SchemaOptions & { readonly dialect: SqlDialect }): string[] {
  return buildSource(unused(options.dialect), options).schemaSql(options.segments);
}

/**
 * Creates what a source needs in the database if missing (idempotent, safe to run from several processes
 * at once), and checks existing sequences' increments. Also creates `hilo_columns`, where each segment's first
 * reservation records the key columns it keys (DESIGN rule 13), so that processes whose role may not create
 * tables record them too.
 *
 * @example
 * ```ts
 * await ensureSchema(client, { segments: ['orders', 'customers'], increment: 100 });
 * ```
 */
export async function ensureSchema(client: SqlClient, options: SchemaOptions): Promise<void> {
  const source = buildSource(client, options);
  for (const segment of options.segments) await source.prepare(segment);
  await columnRegistry(client, { schema: options.schema }).ensure();
}
