import { HiLoConfigurationError } from '../errors.js';
import { validateSegment } from '../engine/segment-name.js';
import type { Block, StoredCount, StoredKey, StoredKeyColumn, StoredKeys } from '../engine/types.js';
import { abortable } from '../sql/abortable.js';
import { convertDriverError, isMissingObject } from '../sql/driver-errors.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SqlClient } from '../sql/sql-client.js';
import { toBigInt } from '../sources/table-source.js';
import { DIALECTS } from '../dialects/index.js';
import type { MissingProbeTable } from './probe-tables.js';

/** Options of {@link sqlStoredKeys}. */
export interface SqlStoredKeysOptions {
  /**
   * What a table that does not exist does: counted as empty either way (migrations still to run); `'warn'` also
   * says so once per table in a process warning (`HILO_STORED_KEYS_MISSING`), since a mistyped name would
   * otherwise turn the check off in silence. A function is told of each probe of a missing table instead, and
   * may throw to refuse the block: the adapters, whose tables come from the ORM's own metadata, pass
   * `missingTableRule` (`probe-tables.ts`: a table still missing after keys of its segment were handed out).
   * @default 'warn'
   */
  readonly missingTables?: 'warn' | 'ignore' | ((missing: MissingProbeTable) => void);
}

/** One configured column with its statements built once. */
interface Probe {
  readonly table: string;
  readonly column: string;
  /** Where the column was named (`storedKeys[2]`), for the warning about a missing table. */
  readonly where: string;
  readonly segment: string;
  /** The column as configured. */
  readonly source: StoredKeyColumn;
  /** Set once the warning about its missing table was given. */
  warned: boolean;
  readonly largest: string;
  readonly within: string;
  readonly count: string;
}

/**
 * The stored keys of SQL tables, for the generator's `storedKeys` option: `columns` names, per segment, each
 * table and key column its keys are stored in. `largest` runs `select max(column) from table` per table;
 * `within` runs `select max(column) from table where column between first and last` per table and block, an
 * indexed range probe on a primary key. A table that does not exist yet counts as empty.
 *
 * @example
 * ```ts
 * const storedKeys = sqlStoredKeys(client, [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * const hilo = createHiLoGenerator({ source: sequenceSource(client, { increment: 100 }), storedKeys });
 * ```
 */
export function sqlStoredKeys(
  client: SqlClient,
  columns: readonly StoredKeyColumn[],
  options: SqlStoredKeysOptions = {},
): StoredKeys {
  const given: unknown = columns;
  if (!Array.isArray(given)) {
    throw HiLoConfigurationError.invalidOption(
      'storedKeys',
      "an array of { segment, table, column }, e.g. [{ segment: 'orders', table: 'orders', column: 'id' }]",
      columns,
    );
  }
  const rules = DIALECTS[client.dialect];
  const bySegment = new Map<string, Probe[]>();
  for (const [i, c] of columns.entries()) {
    if (typeof c !== 'object' || c === null) {
      throw HiLoConfigurationError.invalidOption(`storedKeys[${i}]`, '{ segment, table, column }', c);
    }
    validateSegment(c.segment);
    const table = qualifiedName(rules, `storedKeys[${i}].table`, c.table, rules.hasSchemas ? c.schema : undefined);
    const column = rules.quote(validateIdentifier(`storedKeys[${i}].column`, c.column));
    const probes = bySegment.get(c.segment) ?? [];
    probes.push({
      table: c.schema === undefined ? c.table : `${c.schema}.${c.table}`,
      column: c.column,
      where: `storedKeys[${i}]`,
      segment: c.segment,
      source: c,
      warned: false,
      largest: `select ${rules.asText(`max(${column})`)} as m from ${table}`,
      within:
        `select ${rules.asText(`max(${column})`)} as m from ${table} where ${column} between ` +
        `${rules.asSigned(rules.placeholder(1))} and ${rules.asSigned(rules.placeholder(2))}`,
      count:
        `select ${rules.asText('count(*)')} as m from ${table} where ${column} between ` +
        `${rules.asSigned(rules.placeholder(1))} and ${rules.asSigned(rules.placeholder(2))}`,
    });
    bySegment.set(c.segment, probes);
  }

  async function max(probe: Probe, sql: string, params: readonly unknown[], signal: AbortSignal, block?: Block) {
    const action = `reading the stored keys of ${probe.table}.${probe.column}`;
    try {
      const { rows } = await abortable(client.query<{ m: unknown }>(sql, params), signal, action);
      const raw = rows[0]?.m;
      return raw === null || raw === undefined ? undefined : toBigInt(raw, `max(${probe.column})`);
    } catch (error) {
      // a table not created yet (migrations still to run) holds no keys; a mistyped one would never hold any
      if (isMissingObject(error, rules)) {
        if (typeof options.missingTables === 'function') options.missingTables({ column: probe.source, block });
        else if (options.missingTables !== 'ignore' && !probe.warned) {
          probe.warned = true;
          process.emitWarning(
            `hilo: ${probe.where} names ${probe.table}.${probe.column}, and ${probe.table} does not exist, so the ` +
              `blocks of segment "${probe.segment}" are not checked against it until it does. Fix the table name ` +
              `(or its schema) if it is mistyped.`,
            { code: 'HILO_STORED_KEYS_MISSING' },
          );
        }
        return undefined;
      }
      throw convertDriverError(error, { dialect: rules, action });
    }
  }

  async function largestOf(
    segment: string,
    sql: (probe: Probe) => string,
    params: readonly unknown[],
    signal: AbortSignal,
    block?: Block,
  ): Promise<StoredKey | undefined> {
    let found: StoredKey | undefined;
    for (const probe of bySegment.get(segment) ?? []) {
      const key = await max(probe, sql(probe), params, signal, block);
      if (key !== undefined && (found === undefined || key > found.key)) {
        found = { key, table: probe.table, column: probe.column };
      }
    }
    return found;
  }

  const session = client.session;
  return {
    largest: (segment, signal) => largestOf(segment, (p) => p.largest, [], signal),
    within: (segment, block: Block, signal) =>
      largestOf(segment, (p) => p.within, [block.first, block.last], signal, block),
    ...(session === undefined
      ? {}
      : { session: <T>(work: () => Promise<T>) => session.call(client, work) as Promise<T> }),
    async counts(segment, block: Block, signal) {
      const counts: StoredCount[] = [];
      for (const probe of bySegment.get(segment) ?? []) {
        const keys = await max(probe, probe.count, [block.first, block.last], signal);
        counts.push({ table: probe.table, column: probe.column, keys: keys ?? 0n });
      }
      return counts;
    },
  };
}
