import { validateIdentifier } from '../../sql/identifiers.js';
import {
  missingKeyMessage,
  qualifiedTable,
  type KeyGuardStatements,
  type MissingKeyFunctionOptions,
} from '../../sql/key-guard-target.js';
import { postgresDialect } from './dialect.js';

/** Name of the PostgreSQL function that the guarded key columns use as their default. */
export const MISSING_KEY_FUNCTION = 'hilo_missing_key';

/** Key of hilo's DDL lock (`pg_advisory_xact_lock`): "hilo" in ASCII, unlikely to collide with an app's own keys. */
const DDL_LOCK_KEY = 0x68696c6f;

function functionName(schema: string | undefined): string {
  const name = postgresDialect.quote(MISSING_KEY_FUNCTION);
  return schema === undefined ? name : `${postgresDialect.quote(validateIdentifier('schema', schema))}.${name}`;
}

/**
 * PostgreSQL: `create or replace function hilo_missing_key(segment text) returns bigint` that raises
 * (SQLSTATE P0001) `hilo: a row of segment 'orders' arrived without a key, so hilo is not installed on the client
 * that inserted it. Install it where that client is created: …` (each adapter's line). As a key column's default it
 * runs only when an INSERT leaves the key out, so the column stays optional for ORMs while no row can
 * reach the table without a key. Idempotent.
 *
 * @example
 * ```ts
 * await client.query(missingKeyFunctionSql());
 * ```
 */
export function missingKeyFunctionSql(options: MissingKeyFunctionOptions = {}): string {
  return [
    `create or replace function ${functionName(options.schema)}(segment text) returns bigint`,
    `language plpgsql volatile as $hilo$`,
    `begin`,
    `  raise exception using`,
    `    message = format(${postgresDialect.literal(missingKeyMessage('%1$s'))}, quote_literal(segment));`,
    `end`,
    `$hilo$`,
  ].join('\n');
}

/** PostgreSQL's key guard: the function once per schema, and each key column's default calling it. */
export const postgresKeyGuard: KeyGuardStatements = {
  statements(targets) {
    const statements: string[] = [];
    const schemas = new Set<string | undefined>();
    for (const { schema } of targets) {
      if (schemas.has(schema)) continue;
      schemas.add(schema);
      statements.push(...postgresKeyGuard.perSchema(schema === undefined ? {} : { schema }));
    }
    for (const { segment, table, column, schema } of targets) {
      statements.push(
        `alter table ${qualifiedTable(postgresDialect, table, schema)} alter column ${postgresDialect.quote(column)} ` +
          `set default ${functionName(schema)}(${postgresDialect.literal(segment)})`,
      );
    }
    return statements;
  },
  perSchema: (options) => [missingKeyFunctionSql(options)],
  async problem(client, { table, column, schema }) {
    const relation = qualifiedTable(postgresDialect, table, schema);
    const { rows } = await client.query<{
      kind: string | null;
      identity: string | null;
      generated: string | null;
      found: boolean;
    }>(
      `select c.relkind::text as kind, a.attidentity::text as identity, a.attgenerated::text as generated, a.attname is not null as found
         from (select to_regclass($1) as oid) r
         left join pg_class c on c.oid = r.oid
         left join pg_attribute a on a.attrelid = r.oid and a.attname = $2 and a.attnum > 0 and not a.attisdropped`,
      [relation, column],
    );
    const row = rows[0];
    if (row === undefined || row.kind === null)
      return `table ${relation} does not exist${schema === undefined ? ' (in the search path)' : ''}; create the table first`;
    if (row.kind !== 'r' && row.kind !== 'p') return `${relation} is not a table`;
    if (!row.found) return `table ${relation} has no column "${column}"`;
    if (row.identity)
      return (
        `column "${column}" is an identity column, whose keys PostgreSQL assigns; drop that first (alter ` +
        `table ${relation} alter column "${column}" drop identity)`
      );
    if (row.generated) return `column "${column}" is a generated column`;
    return undefined;
  },
  forServer: async (_client, statements) => statements,
  // released by PostgreSQL at commit
  async lock(tx) {
    await tx.query('select pg_advisory_xact_lock($1)', [DDL_LOCK_KEY]);
  },
  unlock: async () => undefined,
};
