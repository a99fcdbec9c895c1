import { HiLoConfigurationError } from '../errors.js';
import { configurationErrors } from '../error-messages.js';
import { validateSegment } from '../engine/segment-name.js';
import type { Block, StoredCount, StoredKey, StoredKeyColumn, StoredKeyKind, StoredKeys } from '../engine/types.js';
import { abortable } from '../sql/abortable.js';
import { convertDriverError, isMissingObject } from '../sql/driver-errors.js';
import { qualifiedName, validateIdentifier } from '../sql/identifiers.js';
import type { SqlClient } from '../sql/sql-client.js';
import { toBigInt } from '../sources/table-source.js';
import { DIALECTS } from '../dialects/index.js';
import type { IdFormat } from '../engine/options.js';
import { inspectProbe } from './probe-index.js';
import { buildProbeSql, defaultPrefix, type ProbeQuery, type ProbeSql } from './probe-sql.js';
import { STORED_KEY_PROBES } from '../dialects/stored-key-probes.js';
import { checkOneSegmentPerColumn } from './stored-key-columns.js';
import type { MissingProbeTable } from './probe-tables.js';
import { TENANT_CATALOGS } from '../dialects/tenant-catalogs.js';

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
  /**
   * The generator's `idFormat`: where a column says `kind: 'format'` without a `prefix`, its ids are taken to
   * start with this format's prefix of the segment and its separator (`orders/`).
   * @default { separator: '/' } (the segment and `/`)
   */
  readonly idFormat?: IdFormat | undefined;
  /**
   * What a text column does when it holds rows and none of them reads as a key of its kind (decimal digits for
   * `'string'`, a formatted id with its prefix for `'format'`): `'error'` refuses the check with a
   * `HiLoConfigurationError` naming the column, the kind and the fix (a wrong `kind` or `prefix` would otherwise
   * turn the check off without a word); `'warn'` says so once per column in a process warning
   * (`HILO_STORED_KEYS_UNREADABLE`) and counts it as holding no keys, for a column whose old rows were written in
   * another form by something else and can never equal a key hilo writes. A column where some rows read is
   * checked against those: a row of another form cannot equal a key hilo writes in this one.
   * @default 'error'
   */
  readonly onUnreadableKeys?: OnUnreadableKeys | undefined;
  /**
   * Where the segments' hi store lives (`schema`: its schema or database; absent, the connection's): turns on the
   * tenants check (DESIGN rule 10) at each segment's first check. A store beside every table it checks is the
   * tenant's own; any other store is shared by whoever else keeps theirs there, so a table of the same name in a
   * schema (database) the segment does not check is refused with a `HiLoConfigurationError` naming it, unless the
   * column says `tenants: '*'`.
   * @default none (no tenants check)
   */
  readonly store?: { readonly schema?: string | undefined } | undefined;
}

/** See {@link SqlStoredKeysOptions.onUnreadableKeys}. */
export type OnUnreadableKeys = 'error' | 'warn';

/** How many tenants' probes one statement reads at most (a `union all` of theirs). */
const TENANTS_PER_STATEMENT = 250;

/** One configured column with its statements built once. */
interface Probe {
  /** For messages: `schema.table`, or the table as named; the schema it was found in once relocated. */
  table: string;
  readonly column: string;
  /** Where the column was named (`storedKeys[2]`), for the warning about a missing table. */
  readonly where: string;
  readonly segment: string;
  /** The column as configured. */
  readonly source: StoredKeyColumn;
  /** The table (qualified) and column, quoted for statements; the table's schema changes once relocated. */
  quoted: { readonly table: string; readonly column: string };
  /** How its keys are written: the configured kind, or `'format'` once `nextFullId()` said so (issue 52). */
  kind: StoredKeyKind;
  /** The prefix of its formatted ids. */
  prefix: string;
  /** Set once a key was read from it, or once its unreadable rows were warned of: no more readability checks. */
  readable: boolean;
  /** The schema the probe reads the table in (after relocation); `undefined` for the connection's. */
  schema: string | undefined;
  /** What `hilo floor --from` names to lift above every table of a tenant column (`*.orders.id`). */
  readonly floorFrom?: string | undefined;
  /** A tenant found in the catalog (`tenants: '*'`): a table dropped since counts as empty, in silence. */
  readonly quietlyMissing: boolean;
  /** Set once the warning about its missing table was given. */
  warned: boolean;
  /** The statements; built from `kind` until the catalog was read (`inspected`), then from the column's type. */
  sql: ProbeSql;
  inspected: boolean;
  readonly inspect: (signal: AbortSignal) => Promise<void>;
}

/** A column with `tenants`: checked in each tenant's copy of its table. */
interface TenantColumn {
  readonly column: StoredKeyColumn;
  /** Its place in the configured list, for messages. */
  readonly index: number;
  /** The probes of the tenants found so far, by schema. */
  readonly probes: Map<string, Probe>;
}

/**
 * The stored keys of SQL tables, for the generator's `storedKeys` option: `columns` names, per segment, each
 * table and key column its keys are stored in. `largest` runs `select max(column) from table` per table;
 * `within` runs `select max(column) from table where column between first and last` per table and block, an
 * indexed range probe on a primary key. A table that does not exist yet counts as empty. At a segment's first
 * check each column's type and indexes are read from the catalog: decimal keys in a text column are compared as
 * numbers (`kind: 'string'`, or any text column), formatted ids are read back as their number (`kind: 'format'`),
 * and a column no index leads with is a process warning `HILO_PROBE_SCANS` naming the `CREATE INDEX` that fixes it.
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
  const catalog = TENANT_CATALOGS[client.dialect];
  const bySegment = new Map<string, Probe[]>();
  /** Per segment, its tenant columns (`tenants`), each with the probes of the tenants found so far. */
  const tenantsBySegment = new Map<string, TenantColumn[]>();
  const makeProbe = (c: StoredKeyColumn, i: number, tenant?: { floorFrom: string; quiet: boolean }): Probe => {
    const table = qualifiedName(rules, `storedKeys[${i}].table`, c.table, rules.hasSchemas ? c.schema : undefined);
    const column = rules.quote(validateIdentifier(`storedKeys[${i}].column`, c.column));
    const kind = c.kind ?? 'number';
    if (kind !== 'number' && kind !== 'string' && kind !== 'format') {
      throw HiLoConfigurationError.invalidOption(`storedKeys[${i}].kind`, '"number", "string" or "format"', kind);
    }
    if (c.prefix !== undefined && (typeof c.prefix !== 'string' || c.prefix === '' || kind !== 'format')) {
      throw HiLoConfigurationError.invalidOption(
        `storedKeys[${i}].prefix`,
        "a non-empty string, with kind: 'format' (e.g. 'orders/')",
        c.prefix,
      );
    }
    const prefix = c.prefix ?? defaultPrefix(c.segment, options.idFormat);
    let target = { schema: rules.hasSchemas ? c.schema : undefined, table: c.table, column: c.column };
    const probeRules = STORED_KEY_PROBES[client.dialect];
    /**
     * A table named without a schema that hilo's connection does not see, found in exactly one other schema: the
     * application's connections see it there (a pool with a `search_path` hilo's lacks), so the probe reads it
     * there, exactly as in the default schema. None or several: it stays missing (`missingTables` decides).
     */
    const relocate = async (signal: AbortSignal): Promise<boolean> => {
      if (target.schema !== undefined || !rules.hasSchemas || probeRules.schemasWithTable === undefined) return false;
      const action = `looking for table ${c.table} in the database's schemas`;
      const schemas = await abortable(probeRules.schemasWithTable(client, c.table), signal, action);
      if (schemas.length !== 1) return false;
      target = { ...target, schema: schemas[0] };
      probe.quoted = { table: qualifiedName(rules, `storedKeys[${i}].table`, c.table, schemas[0]), column };
      probe.table = `${schemas[0]}.${c.table}`;
      probe.schema = schemas[0];
      return true;
    };
    const probe: Probe = {
      table: c.schema === undefined ? c.table : `${c.schema}.${c.table}`,
      column: c.column,
      where: `storedKeys[${i}]`,
      segment: c.segment,
      source: c,
      schema: target.schema,
      ...(tenant === undefined ? {} : { floorFrom: tenant.floorFrom }),
      quietlyMissing: tenant?.quiet ?? false,
      quoted: { table, column },
      kind,
      prefix,
      readable: false,
      warned: false,
      sql: buildProbeSql(rules, STORED_KEY_PROBES[client.dialect], table, column, kind, prefix),
      inspected: false,
      // the column's type and indexes, read at the segment's first check (again while its table is missing)
      async inspect(signal) {
        if (probe.inspected) return;
        const action = `reading the catalog entry of ${probe.table}.${probe.column}`;
        const read = () =>
          abortable(inspectProbe(client, rules, target, probe.quoted, probe.kind, probe.prefix), signal, action).catch(
            (error: unknown) => {
              throw convertDriverError(error, { dialect: rules, action });
            },
          );
        let found = await read();
        if (found.facts === undefined && (await relocate(signal).catch(() => false))) found = await read();
        probe.sql = found.sql;
        probe.inspected = found.facts !== undefined;
      },
    };
    return probe;
  };
  for (const [i, c] of columns.entries()) {
    if (typeof c !== 'object' || c === null) {
      throw HiLoConfigurationError.invalidOption(`storedKeys[${i}]`, '{ segment, table, column }', c);
    }
    validateSegment(c.segment);
    if (c.tenants === undefined) {
      bySegment.set(c.segment, [...(bySegment.get(c.segment) ?? []), makeProbe(c, i)]);
      continue;
    }
    const { tenants } = c;
    const list = Array.isArray(tenants) && tenants.every((t) => typeof t === 'string' && t !== '');
    if ((tenants !== '*' && !list) || c.schema !== undefined || (tenants === '*' && catalog === undefined)) {
      throw HiLoConfigurationError.invalidOption(
        `storedKeys[${i}].tenants`,
        catalog === undefined
          ? 'no tenants: this database has no schemas'
          : "'*' (every schema or database holding the table) or a list of tenant schemas, without `schema`",
        tenants,
      );
    }
    // the column's names are checked once, as any column's (the probes per tenant are built when found)
    makeProbe({ ...c, tenants: undefined }, i);
    const group: TenantColumn = { column: c, index: i, probes: new Map() };
    tenantsBySegment.set(c.segment, [...(tenantsBySegment.get(c.segment) ?? []), group]);
  }
  // one column, one segment: two segments counting into one column hand out the same keys (issue 46)
  checkOneSegmentPerColumn(columns, client.dialect);
  const onUnreadable = options.onUnreadableKeys ?? 'error';
  if (onUnreadable !== 'error' && onUnreadable !== 'warn') {
    throw HiLoConfigurationError.invalidOption('onUnreadableKeys', '"error" or "warn"', onUnreadable);
  }

  /** Segments whose tenants check passed (it runs at a segment's first check, on this instance). */
  const covered = new Set<string>();
  /**
   * Per segment, the probes of tenants found after its first check and not yet probed over the keys a generator holds
   * (`recheck`): those keys were checked before the tenant's table existed.
   */
  const unseen = new Map<string, Probe[]>();

  /**
   * The segment's probes: its tables, and each tenant's copy of a tenant column's table, read from the catalog
   * at every check (`tenants: '*'`) so that a tenant created while the application runs is checked from the
   * next block on. At the segment's first check, the tenants check (DESIGN rule 10, see `store`).
   */
  async function probesOf(segment: string, signal: AbortSignal): Promise<readonly Probe[]> {
    const fixed = bySegment.get(segment) ?? [];
    const groups = tenantsBySegment.get(segment) ?? [];
    const probes = [...fixed];
    for (const group of groups) {
      const { column: c, index, probes: known } = group;
      const schemas =
        c.tenants === '*'
          ? await abortable(catalog!.schemasWithTable(client, c.table), signal, `finding the tenants of ${c.table}`)
          : (c.tenants as readonly string[]);
      for (const schema of schemas) {
        let probe = known.get(schema);
        if (probe === undefined) {
          const floorFrom = `*.${c.table}.${c.column}`;
          // ids `nextFullId()` said it writes are read so in a tenant found later too
          const toldPrefix = told.get(segment);
          const kind =
            toldPrefix !== undefined && c.kind === undefined ? { kind: 'format' as const, prefix: toldPrefix } : {};
          const spec = { ...c, ...kind, schema, tenants: undefined };
          probe = makeProbe(spec, index, { floorFrom, quiet: c.tenants === '*' });
          known.set(schema, probe);
          if (covered.has(segment)) unseen.set(segment, [...(unseen.get(segment) ?? []), probe]);
        }
        probes.push(probe);
      }
    }
    if (!covered.has(segment)) {
      // where each table is read (a table relocated to the one schema holding it) is known once inspected
      for (const probe of fixed) await probe.inspect(signal);
      await checkTenants(segment, fixed, groups, signal);
      covered.add(segment);
    }
    return probes;
  }

  /**
   * Refuses a store shared by tenants that checks only some of them: one not beside every table it checks (so
   * other tenants may keep theirs there too), while a table of the same name in a schema it does not check exists.
   */
  async function checkTenants(
    segment: string,
    fixed: readonly Probe[],
    groups: readonly TenantColumn[],
    signal: AbortSignal,
  ): Promise<void> {
    if (options.store === undefined || catalog === undefined) return;
    const action = `checking that the hi store of segment "${segment}" and its tables cover the same tenants`;
    const current = await abortable(catalog.currentSchema(client), signal, action);
    // from now on a table is named with its schema (database), so that a refusal says which tenant's it is
    for (const probe of fixed)
      if (probe.schema === undefined && current !== '') probe.table = `${current}.${probe.table}`;
    const store = options.store.schema ?? current;
    const checked = new Map<string, Set<string>>();
    let own = groups.length === 0;
    for (const probe of fixed) {
      const schema = probe.schema ?? current;
      checked.set(probe.source.table, (checked.get(probe.source.table) ?? new Set()).add(schema));
      if (schema !== store) own = false;
    }
    if (own) return;
    const everyTenant = new Set(groups.filter((g) => g.column.tenants === '*').map((g) => g.column.table));
    const names: string[] = [];
    const unchecked: string[] = [];
    for (const [table, schemas] of checked) {
      for (const schema of schemas) names.push(`${schema}.${table}`);
      if (everyTenant.has(table)) continue;
      for (const schema of await abortable(catalog.schemasWithTable(client, table), signal, action)) {
        if (!schemas.has(schema)) unchecked.push(`${schema}.${table}`);
      }
    }
    if (unchecked.length > 0) throw configurationErrors.storeSharedByTenants(segment, store, names, unchecked);
  }

  async function max(probe: Probe, sql: string, params: readonly unknown[], signal: AbortSignal, block?: Block) {
    const action = `reading the stored keys of ${probe.table}.${probe.column}`;
    try {
      // on a Galera node, a key another node just stored must be seen: the read waits until this node applied it
      const causal = (await rules.replication?.causalRead?.(client)) ?? '';
      const { rows } = await abortable(client.query<{ m: unknown }>(causal + sql, params), signal, action);
      const raw = rows[0]?.m;
      return raw === null || raw === undefined ? undefined : toBigInt(raw, `max(${probe.column})`);
    } catch (error) {
      // a table not created yet (migrations still to run) holds no keys; a mistyped one would never hold any
      if (isMissingObject(error, rules)) {
        // a tenant found in the catalog and dropped since holds no keys
        if (probe.quietlyMissing) return undefined;
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

  /** The first key the queries find (they come the longest keys first), or `undefined`. */
  async function first(probe: Probe, queries: readonly ProbeQuery[], signal: AbortSignal, block?: Block) {
    for (const { sql, params } of queries) {
      const key = await max(probe, sql, params, signal, block);
      if (key !== undefined) return key;
    }
    return undefined;
  }

  /**
   * The largest key of each of many tenants' numeric probes, read by one statement per {@link TENANTS_PER_STATEMENT}
   * tenants (a `union all` of their probes) instead of one round trip each: a store shared by 1,000 tenants would
   * otherwise pay 1,000 round trips per block. Undefined when a statement failed (a tenant's table dropped since
   * the catalog was read, say): the caller then probes each alone, which says what failed and why.
   */
  async function tenantsAtOnce(
    probes: readonly Probe[],
    queries: (sql: ProbeSql) => readonly ProbeQuery[],
    signal: AbortSignal,
  ): Promise<Map<Probe, bigint | undefined> | undefined> {
    const keys = new Map<Probe, bigint | undefined>();
    // `$1` placeholders name their parameter: members share one set; `?` ones take them in order
    const numbered = rules.placeholder(1) !== rules.placeholder(2);
    const groups = new Map<string, { probe: Probe; query: ProbeQuery }[]>();
    for (const probe of probes) {
      const [query, ...more] = queries(probe.sql);
      // a block wholly above the column's maximum: no statement, no key
      if (query === undefined) keys.set(probe, undefined);
      else if (more.length > 0) return undefined;
      else {
        const group = numbered ? query.params.map(String).join(',') : '';
        groups.set(group, [...(groups.get(group) ?? []), { probe, query }]);
      }
    }
    const causal = (await rules.replication?.causalRead?.(client)) ?? '';
    for (const members of groups.values()) {
      for (let at = 0; at < members.length; at += TENANTS_PER_STATEMENT) {
        const chunk = members.slice(at, at + TENANTS_PER_STATEMENT);
        const sql = chunk
          .map(({ query }, i) => `select ${i} as t, q${i}.m from (${query.sql}) q${i}`)
          .join(' union all ');
        const params = numbered ? chunk[0]!.query.params : chunk.flatMap(({ query }) => query.params);
        const action = `reading the stored keys of ${chunk.length} tenants' ${chunk[0]!.probe.column} columns`;
        try {
          const { rows } = await abortable(
            client.query<{ t: unknown; m: unknown }>(causal + sql, params),
            signal,
            action,
          );
          for (const row of rows) {
            const { probe } = chunk[Number(row.t)]!;
            const raw = row.m;
            keys.set(probe, raw === null || raw === undefined ? undefined : toBigInt(raw, `max(${probe.column})`));
          }
        } catch (error) {
          if (signal.aborted) throw error;
          return undefined;
        }
      }
    }
    return keys;
  }

  async function largestOf(
    segment: string,
    queries: (sql: ProbeSql) => readonly ProbeQuery[],
    signal: AbortSignal,
    block?: Block,
  ): Promise<StoredKey | undefined> {
    let found: StoredKey | undefined;
    const probes = await probesOf(segment, signal);
    for (const probe of probes) await probe.inspect(signal);
    // the tenants' copies of a numeric key column, read together (text keys need the readability check per table)
    const tenants = probes.filter((probe) => probe.floorFrom !== undefined && probe.sql.compare === 'number');
    const together = tenants.length > 1 ? await tenantsAtOnce(tenants, queries, signal) : undefined;
    for (const probe of probes) {
      const key = together?.has(probe) ? together.get(probe) : await first(probe, queries(probe.sql), signal, block);
      if (key !== undefined) probe.readable = true;
      else await checkReadable(probe, signal);
      if (key !== undefined && (found === undefined || key > found.key)) {
        const floorFrom = probe.floorFrom === undefined ? {} : { floorFrom: probe.floorFrom };
        found = { key, table: probe.table, column: probe.column, ...floorFrom };
      }
    }
    return found;
  }

  /**
   * A text column in which no key of its kind was read yet: if it holds rows, and none of them reads as such a
   * key, the probe could never find one, and the check would pass in silence (issue 52: formatted ids in a
   * column read as decimal keys). That is refused, or warned of once with `onUnreadableKeys: 'warn'`. Runs only
   * until the column's first key is read (an empty table costs one `limit 1` read per check until then).
   */
  async function checkReadable(probe: Probe, signal: AbortSignal): Promise<void> {
    const compare = probe.sql.compare;
    if (probe.readable || compare === 'number') return;
    if ((await first(probe, [probe.sql.largest], signal)) !== undefined) {
      probe.readable = true;
      return;
    }
    const sample = await anyRow(probe, signal);
    if (sample === undefined) return;
    const error = configurationErrors.storedKeysUnreadable({
      where: probe.where,
      segment: probe.segment,
      column: `${probe.table}.${probe.column}`,
      kind: compare,
      prefix: probe.prefix,
      sample,
    });
    if (onUnreadable === 'error') throw error;
    probe.readable = true;
    process.emitWarning(`hilo: ${error.message}`, { code: 'HILO_STORED_KEYS_UNREADABLE' });
  }

  /** One non-null value of the column, as text; `undefined` for an empty (or missing) table. */
  async function anyRow(probe: Probe, signal: AbortSignal): Promise<string | undefined> {
    const action = `reading a row of ${probe.table}.${probe.column}`;
    const { table, column } = probe.quoted;
    const sql = `select ${rules.asText(column)} as v from ${table} where ${column} is not null limit 1`;
    try {
      const { rows } = await abortable(client.query<{ v: unknown }>(sql, []), signal, action);
      const value = rows[0]?.v;
      if (value === undefined || value === null) return undefined;
      // cast to text by the statement; a driver may still hand back a Buffer (MariaDB binary collations)
      const text =
        typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : JSON.stringify(value);
      return text.slice(0, 80);
    } catch (error) {
      if (isMissingObject(error, rules)) return undefined;
      throw convertDriverError(error, { dialect: rules, action });
    }
  }

  /**
   * `nextFullId()` writes the keys of `segment` as formatted ids starting with `prefix`: a column of it that
   * declares no kind is read so from now on (a numeric column stays a numeric probe), a `'format'` column
   * without its own prefix takes this one, and one declared `'number'` or `'string'` is refused.
   */
  function formatted(segment: string, prefix: string): void {
    if (told.get(segment) === prefix) return;
    const tenantProbes = (tenantsBySegment.get(segment) ?? []).flatMap((group) => [...group.probes.values()]);
    for (const probe of [...(bySegment.get(segment) ?? []), ...tenantProbes]) {
      const declared = probe.source.kind;
      if (declared === 'number' || declared === 'string') {
        throw configurationErrors.formattedIdsInDecimalColumn(
          probe.where,
          segment,
          `${probe.table}.${probe.column}`,
          declared,
          prefix,
        );
      }
      if (probe.kind === 'format' && (probe.prefix === prefix || probe.source.prefix !== undefined)) continue;
      probe.kind = 'format';
      probe.prefix = prefix;
      probe.readable = false;
      probe.sql = buildProbeSql(
        rules,
        STORED_KEY_PROBES[client.dialect],
        probe.quoted.table,
        probe.quoted.column,
        'format',
        prefix,
      );
      // read the catalog again: its type decides between the numeric probe and the formatted one
      probe.inspected = false;
    }
    told.set(segment, prefix);
  }
  const told = new Map<string, string>();

  /** See `StoredKeys.recheck`: the keys in hand probed in the tenants' tables found since the last check. */
  async function recheck(segment: string, blocks: readonly Block[], signal: AbortSignal) {
    if (!tenantsBySegment.has(segment) || !covered.has(segment)) return undefined;
    await probesOf(segment, signal);
    const fresh = unseen.get(segment) ?? [];
    unseen.delete(segment);
    let found: { stored: StoredKey; block: Block } | undefined;
    try {
      for (const probe of fresh) {
        await probe.inspect(signal);
        for (const block of blocks) {
          const key = await first(probe, probe.sql.within(block.first, block.last), signal, block);
          if (key === undefined || (found !== undefined && key <= found.stored.key)) continue;
          const floorFrom = probe.floorFrom === undefined ? {} : { floorFrom: probe.floorFrom };
          found = { stored: { key, table: probe.table, column: probe.column, ...floorFrom }, block };
        }
      }
    } catch (error) {
      // not probed: they are probed at the next check instead
      unseen.set(segment, [...fresh, ...(unseen.get(segment) ?? [])]);
      throw error;
    }
    return found;
  }

  const session = client.session;
  return {
    formatted,
    // only tenants found in the catalog can appear after the keys in hand were checked
    ...(tenantsBySegment.size === 0 ? {} : { recheck }),
    columns: (segment) => (bySegment.get(segment) ?? []).map((probe) => probe.source),
    largest: (segment, signal) => largestOf(segment, (sql) => [sql.largest], signal),
    within: (segment, block: Block, signal) =>
      largestOf(segment, (sql) => sql.within(block.first, block.last), signal, block),
    ...(session === undefined
      ? {}
      : { session: <T>(work: () => Promise<T>) => session.call(client, work) as Promise<T> }),
    async counts(segment, block: Block, signal) {
      const counts: StoredCount[] = [];
      for (const probe of await probesOf(segment, signal)) {
        await probe.inspect(signal);
        let keys = 0n;
        for (const { sql, params } of probe.sql.count(block.first, block.last))
          keys += (await max(probe, sql, params, signal)) ?? 0n;
        counts.push({ table: probe.table, column: probe.column, keys });
      }
      return counts;
    },
  };
}
