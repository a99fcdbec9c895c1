import type { StoredKeyKind } from '../engine/types.js';
import type { Dialect } from '../sql/dialect.js';
import type { SqlClient } from '../sql/sql-client.js';
import { STORED_KEY_PROBES } from '../dialects/stored-key-probes.js';
import { buildProbeSql, type ColumnFacts, type ProbeSql, type ProbeTarget } from './probe-sql.js';

/** The columns a process warned about already (`HILO_PROBE_SCANS` is said once per column per process). */
const warned = new Set<string>();

/** The probe statements of a column and what its catalog said (`facts` undefined while its table is missing). */
export interface InspectedProbe {
  readonly sql: ProbeSql;
  readonly facts: ColumnFacts | undefined;
}

/**
 * Reads the column's type and indexes from the catalog and builds its probe statements: the SQL type decides how
 * keys are compared (digits in a text column as numbers), `kind` only while the table does not exist yet
 * (`facts` is then undefined, and the caller asks again at the next check). A column no index leads with
 * gets one process warning `HILO_PROBE_SCANS` naming it and the `CREATE INDEX` that fixes it: without one,
 * every reservation reads the whole table.
 */
export async function inspectProbe(
  client: SqlClient,
  dialect: Dialect,
  target: ProbeTarget,
  quoted: { readonly table: string; readonly column: string },
  kind: StoredKeyKind,
  prefix: string,
): Promise<InspectedProbe> {
  const rules = STORED_KEY_PROBES[dialect.name];
  const facts = await rules.inspect(client, target);
  const compare: StoredKeyKind = !facts.found
    ? kind
    : !facts.textual
      ? 'number'
      : kind === 'format'
        ? 'format'
        : 'string';
  const sql = buildProbeSql(dialect, rules, quoted.table, quoted.column, compare, prefix, facts.maxValue);
  if (facts.found) warnIfScanning(client, dialect, target, quoted, compare, facts);
  return { sql, facts: facts.found ? facts : undefined };
}

/** The `CREATE INDEX` that lets the probe of `target` read an index range instead of the table. */
export function createIndexStatement(
  dialect: Dialect,
  target: ProbeTarget,
  quoted: { readonly table: string; readonly column: string },
): string {
  const name = `${target.table}_${target.column}_hilo`.slice(0, 60);
  return `create index ${dialect.quote(name)} on ${quoted.table} (${quoted.column})`;
}

function warnIfScanning(
  client: SqlClient,
  dialect: Dialect,
  target: ProbeTarget,
  quoted: { readonly table: string; readonly column: string },
  compare: StoredKeyKind,
  facts: ColumnFacts,
): void {
  if (compare !== 'format' && facts.indexed) return;
  const where = `${target.schema === undefined ? '' : `${target.schema}.`}${target.table}.${target.column}`;
  const once = `${client.dialect} ${where}`;
  if (warned.has(once)) return;
  warned.add(once);
  const message =
    compare === 'format'
      ? `hilo: the stored keys of ${where} are formatted ids, which the probe parses row by row, so each ` +
        `reservation of its segment reads the whole table (slow on a large one). Keep the number in a column of ` +
        `its own, indexed, and name that column in storedKeys.`
      : `hilo: no index leads with ${where}, so each reservation of its segment reads the whole table to check ` +
        `its block against the stored keys (slow on a large one). Create one: ` +
        `${createIndexStatement(dialect, target, quoted)};`;
  process.emitWarning(message, { code: 'HILO_PROBE_SCANS' });
}
