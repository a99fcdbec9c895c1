import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SequenceSourceOptions } from '../sources/sequence-source.js';
import { DEFAULT_SEQUENCE_INCREMENT } from './schema.js';
import type { SqlClient } from '../sql/sql-client.js';
import type { FloorResult, SqlHiSource } from '../sources/sql-hi-source.js';
import { defaultSourceKind, sequenceSource, tableSource, type SqlSourceKind } from './sources.js';
import type { TableSourceOptions } from '../sources/table-source.js';
import { toHiLoError } from './driver-errors.js';
import { DIALECTS, SEQUENCE_STATEMENTS } from '../dialects/index.js';
import { TENANT_CATALOGS } from '../dialects/tenant-catalogs.js';
import { HiLoConfigurationError } from '../errors.js';
import { configurationErrors } from '../error-messages.js';

/** Options of {@link raiseFloor}. */
export interface RaiseFloorOptions {
  /** The segment to raise. */
  readonly segment: string;
  /** The table whose existing keys every future key must exceed, e.g. `orders`. */
  readonly table: string;
  /**
   * Its key column.
   * @default 'id'
   */
  readonly column?: string;
  /** That table's schema (PostgreSQL) or database (MySQL). */
  readonly schema?: string;
  /**
   * A store shared by tenants: raise it above every tenant's copy of `table` instead of one schema's (`'*'`: each
   * schema or database holding a table of that name, read from the catalog; or the tenants named), never above
   * one tenant's keys only. Without it, a floor from a table in another schema than the store's is refused while
   * other schemas hold the same table (DESIGN rule 10).
   */
  readonly tenants?: '*' | readonly string[];
  /**
   * The segment's source kind.
   * @default 'sequence' on PostgreSQL, 'table' elsewhere
   */
  readonly source?: SqlSourceKind;
  /**
   * How the source is configured (hi table name, sequence naming, strategy, …). For sequences without
   * `increment`, the existing sequence's INCREMENT BY is used.
   */
  readonly sourceOptions?: Partial<SequenceSourceOptions> & TableSourceOptions;
}

/**
 * Raises a segment so that every future key is above the largest key already in `table.column` (after
 * importing rows, or when adopting hi/lo on an existing table). Never moves a segment backwards, so it is
 * safe to run at any time (Quarkus #31899). Creates the sequence or row when missing.
 *
 * @example
 * ```ts
 * await raiseFloor(client, { segment: 'orders', table: 'orders', column: 'id' });
 * ```
 */
export async function raiseFloor(client: SqlClient, options: RaiseFloorOptions): Promise<FloorResult> {
  const schemas = await floorSchemas(client, options);
  if (schemas === undefined) return raiseFloorFrom(client, options);
  // one tenant at a time: the floor never moves down, so it ends above the largest key of them all
  let result: FloorResult = { segment: options.segment, maxKey: undefined, raised: false };
  for (const schema of schemas) {
    const one = await raiseFloorFrom(client, { ...options, schema, tenants: undefined });
    const maxKey =
      result.maxKey === undefined || (one.maxKey !== undefined && one.maxKey > result.maxKey)
        ? one.maxKey
        : result.maxKey;
    result = { segment: options.segment, maxKey, raised: result.raised || one.raised };
  }
  return result;
}

/**
 * The tenants' schemas a floor reads (`tenants`), or `undefined` for the one table named; refuses a floor from one
 * tenant's table into a store it does not own while other schemas hold the same table.
 */
async function floorSchemas(client: SqlClient, options: RaiseFloorOptions): Promise<readonly string[] | undefined> {
  const catalog = TENANT_CATALOGS[client.dialect];
  const { tenants } = options;
  if (tenants !== undefined) {
    const list = Array.isArray(tenants) && tenants.every((t) => typeof t === 'string' && t !== '');
    if ((tenants !== '*' && !list) || options.schema !== undefined || (tenants === '*' && catalog === undefined)) {
      throw HiLoConfigurationError.invalidOption(
        'tenants',
        "'*' (every schema or database holding the table) or a list of tenant schemas, without `schema`",
        tenants,
      );
    }
    if (tenants !== '*') return tenants as readonly string[];
    return catalog!.schemasWithTable(client, options.table).catch((error: unknown) => {
      throw toHiLoError(error, { dialect: client.dialect, action: `finding the tenants of ${options.table}` });
    });
  }
  if (catalog === undefined) return undefined;
  try {
    const current = await catalog.currentSchema(client);
    const store = options.sourceOptions?.schema ?? current;
    const from = options.schema ?? current;
    if (from === store) return undefined;
    const others = (await catalog.schemasWithTable(client, options.table)).filter((s) => s !== from);
    if (others.length === 0) return undefined;
    const column = options.column ?? 'id';
    throw configurationErrors.floorOneTenant(
      options.segment,
      store,
      `${from}.${options.table}.${column}`,
      others.map((s) => `${s}.${options.table}`),
    );
  } catch (error) {
    throw toHiLoError(error, { dialect: client.dialect, action: `finding the tenants of ${options.table}` });
  }
}

async function raiseFloorFrom(client: SqlClient, options: RaiseFloorOptions): Promise<FloorResult> {
  const from = {
    table: options.table,
    ...(options.column === undefined ? {} : { column: options.column }),
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  };
  const source = await segmentSource(client, options.segment, options.source, options.sourceOptions);
  return source.raiseFloor(options.segment, from);
}

/**
 * The source of one segment for maintenance: a table source, or a sequence source whose increment is the
 * existing sequence's INCREMENT BY unless `sourceOptions.increment` says otherwise.
 */
export async function segmentSource(
  client: SqlClient,
  segment: string,
  kind: SqlSourceKind = defaultSourceKind(client),
  sourceOptions: Partial<SequenceSourceOptions> & TableSourceOptions = {},
): Promise<SqlHiSource> {
  if (kind === 'table') return tableSource(client, sourceOptions);
  let increment = sourceOptions.increment;
  if (increment === undefined) {
    const name = validateIdentifier('sequence', (sourceOptions.name ?? ((s: string) => `${s}_hilo_seq`))(segment));
    const quoted = qualifiedName(DIALECTS[client.dialect], 'sequence', name, sourceOptions.schema);
    const statements = SEQUENCE_STATEMENTS[client.dialect];
    try {
      const existing =
        statements === undefined
          ? undefined
          : await statements.readIncrement(client, quoted, sourceOptions.schema, name);
      // a `hilo` sequence advances by 1 and cannot tell its maxLo: that strategy needs `increment`
      increment = existing === undefined ? DEFAULT_SEQUENCE_INCREMENT : Number(existing);
    } catch (error) {
      throw toHiLoError(error, { dialect: client.dialect, action: `reading the increment of sequence ${quoted}` });
    }
  }
  return sequenceSource(client, { ...sourceOptions, increment });
}
