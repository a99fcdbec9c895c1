import { HiLoConfigurationError, HiLoSourceError, describe } from '../errors.js';
import { quoteIdentifier, validateIdentifier, validateSegment } from '../identifiers.js';
import { toHiLoError } from './driver-errors.js';
import type { SqlClient, SqlDialect, SqlExecutor } from './sql-client.js';

/** The databases a key guard is written for. `mysql` covers MariaDB and MySQL; SQLite has none. */
export type KeyGuardDialect = 'postgres' | 'mysql';

/** Name of the PostgreSQL function that the guarded key columns use as their default. */
export const MISSING_KEY_FUNCTION = 'hilo_missing_key';

/** A key column that rows must never reach without a key from hilo. */
export interface KeyGuardTarget {
  /** The segment the column's keys come from; it only appears in the error message. */
  readonly segment: string;
  /** The table, e.g. `orders`. */
  readonly table: string;
  /**
   * The key column.
   * @default 'id'
   */
  readonly column?: string;
  /**
   * The table's schema (PostgreSQL) or database (MySQL); on PostgreSQL the function is created there too.
   * @default the search path's first schema (PostgreSQL), the connection's database (MySQL)
   */
  readonly schema?: string;
}

/** Options of {@link missingKeyFunctionSql}. */
export interface MissingKeyFunctionOptions {
  /**
   * Schema of the function.
   * @default none: the search path's first schema
   */
  readonly schema?: string;
}

/** What a guarded table's trigger is called on MariaDB/MySQL: `<table>_hilo_key` (at most 59 characters). */
export function keyGuardTriggerName(table: string): string {
  return `${validateIdentifier('table', table).slice(0, 50)}_hilo_key`;
}

function functionName(schema: string | undefined): string {
  const name = quoteIdentifier('postgres', MISSING_KEY_FUNCTION);
  return schema === undefined ? name : `${quoteIdentifier('postgres', validateIdentifier('schema', schema))}.${name}`;
}

function qualified(dialect: KeyGuardDialect, name: string, schema: string | undefined): string {
  const quoted = quoteIdentifier(dialect, name);
  return schema === undefined ? quoted : `${quoteIdentifier(dialect, validateIdentifier('schema', schema))}.${quoted}`;
}

function pgLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function myLiteral(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

interface CheckedTarget {
  readonly segment: string;
  readonly table: string;
  readonly column: string;
  readonly schema: string | undefined;
}

function check(target: KeyGuardTarget): CheckedTarget {
  if (typeof target !== 'object' || target === null) throw HiLoConfigurationError.invalidOption('target', 'an object { segment, table, column? }', target);
  return {
    segment: validateSegment(target.segment),
    table: validateIdentifier('table', target.table),
    column: validateIdentifier('column', target.column ?? 'id'),
    schema: target.schema === undefined ? undefined : validateIdentifier('schema', target.schema),
  };
}

function checkDialect(dialect: unknown): KeyGuardDialect {
  if (dialect === 'postgres' || dialect === 'mysql') return dialect;
  if (dialect === 'sqlite') {
    throw new HiLoConfigurationError(
      'SQLite has no key guard: its column defaults cannot raise and hilo does not install triggers there. Guard keys on PostgreSQL or MariaDB/MySQL.',
    );
  }
  throw HiLoConfigurationError.invalidOption('dialect', '"postgres" or "mysql"', dialect);
}

/**
 * PostgreSQL: `create or replace function hilo_missing_key(segment text) returns bigint` that raises
 * (SQLSTATE P0001) `hilo: a row of segment 'orders' arrived without a key`. As a key column's default it
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
    `    message = format('hilo: a row of segment %s arrived without a key', quote_literal(segment)),`,
    `    hint = 'Assign the key from hilo before the INSERT (e.g. generator.next(segment), or an ORM extended with hilo).';`,
    `end`,
    `$hilo$`,
  ].join('\n');
}

/**
 * MariaDB/MySQL: a `BEFORE INSERT` trigger named {@link keyGuardTriggerName} that rejects (SQLSTATE 45000)
 * a row whose key is NULL or 0 (what an omitted NOT NULL or AUTO_INCREMENT integer column holds in the
 * trigger). Column defaults cannot call stored functions there, so the trigger plays the part of
 * PostgreSQL's default. Two statements, no DELIMITER needed: drop the trigger if it exists, create it.
 *
 * @example
 * ```ts
 * for (const sql of missingKeyTriggerSql({ segment: 'orders', table: 'orders', column: 'id' })) await client.query(sql);
 * ```
 */
export function missingKeyTriggerSql(target: KeyGuardTarget): [string, string] {
  const { segment, table, column, schema } = check(target);
  const trigger = qualified('mysql', keyGuardTriggerName(table), schema);
  // MESSAGE_TEXT holds at most 128 characters
  const message = `hilo: a row of segment '${segment.slice(0, 40)}' arrived without a key; assign it from hilo`;
  const key = `NEW.${quoteIdentifier('mysql', column)}`;
  return [
    `drop trigger if exists ${trigger}`,
    [
      `create trigger ${trigger} before insert on ${qualified('mysql', table, schema)} for each row`,
      `begin`,
      `  if ${key} is null or ${key} = 0 then`,
      `    signal sqlstate '45000' set message_text = ${myLiteral(message)};`,
      `  end if;`,
      `end`,
    ].join('\n'),
  ];
}

/**
 * Every statement that guards `targets`: on PostgreSQL the {@link missingKeyFunctionSql function} (once per
 * schema) and `alter table … alter column … set default hilo_missing_key('segment')` per column; on
 * MariaDB/MySQL a {@link missingKeyTriggerSql trigger} per table. Idempotent. Checks every name and runs
 * nothing: for migrations. {@link ensureKeyGuard} runs them after checking that the columns exist.
 *
 * @throws HiLoConfigurationError when a name is not a plain SQL identifier, or for `sqlite` (no guard there)
 *
 * @example
 * ```ts
 * keyGuardSql('postgres', [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * // [ 'create or replace function "hilo_missing_key"(segment text) …',
 * //   `alter table "orders" alter column "id" set default "hilo_missing_key"('orders')` ]
 * ```
 */
export function keyGuardSql(dialect: KeyGuardDialect | SqlDialect, targets: readonly KeyGuardTarget[]): string[] {
  const kind = checkDialect(dialect);
  if (!Array.isArray(targets)) throw HiLoConfigurationError.invalidOption('targets', 'an array of { segment, table, column? }', targets);
  const checked = targets.map(check);
  const statements: string[] = [];
  if (kind === 'mysql') {
    for (const target of checked) statements.push(...missingKeyTriggerSql(target));
    return statements;
  }
  const schemas = new Set<string | undefined>();
  for (const { schema } of checked) {
    if (schemas.has(schema)) continue;
    schemas.add(schema);
    statements.push(missingKeyFunctionSql(schema === undefined ? {} : { schema }));
  }
  for (const { segment, table, column, schema } of checked) {
    statements.push(
      `alter table ${qualified('postgres', table, schema)} alter column ${quoteIdentifier('postgres', column)} set default ${functionName(schema)}(${pgLiteral(segment)})`,
    );
  }
  return statements;
}

function where(target: CheckedTarget): string {
  return `${target.schema === undefined ? '' : `${target.schema}.`}${target.table}.${target.column}`;
}

/** Why the column cannot be guarded, or undefined when it can. */
async function problem(client: SqlClient, target: CheckedTarget): Promise<string | undefined> {
  const { table, column, schema } = target;
  if (client.dialect === 'postgres') {
    const relation = qualified('postgres', table, schema);
    const { rows } = await client.query<{ kind: string | null; identity: string | null; generated: string | null; found: boolean }>(
      `select c.relkind::text as kind, a.attidentity::text as identity, a.attgenerated::text as generated, a.attname is not null as found
         from (select to_regclass($1) as oid) r
         left join pg_class c on c.oid = r.oid
         left join pg_attribute a on a.attrelid = r.oid and a.attname = $2 and a.attnum > 0 and not a.attisdropped`,
      [relation, column],
    );
    const row = rows[0];
    if (row === undefined || row.kind === null) return `table ${relation} does not exist${schema === undefined ? ' (in the search path)' : ''}; create the table first`;
    if (row.kind !== 'r' && row.kind !== 'p') return `${relation} is not a table`;
    if (!row.found) return `table ${relation} has no column "${column}"`;
    if (row.identity) return `column "${column}" is an identity column, whose keys PostgreSQL assigns; drop that first (alter table ${relation} alter column "${column}" drop identity)`;
    if (row.generated) return `column "${column}" is a generated column`;
    return undefined;
  }
  const { rows } = await client.query<{ name: string }>(
    `select column_name as name from information_schema.columns where table_schema = coalesce(?, database()) and table_name = ?`,
    [schema ?? null, table],
  );
  if (rows.length === 0) return `table \`${schema === undefined ? '' : `${schema}.`}${table}\` does not exist${schema === undefined ? ' in the current database' : ''}; create the table first`;
  if (!rows.some((row) => String(row.name).toLowerCase() === column.toLowerCase())) return `table \`${table}\` has no column \`${column}\``;
  return undefined;
}

/**
 * Installs the key guard of {@link keyGuardSql} on the database behind `client`, after checking that every
 * table and column exists (and, on PostgreSQL, is not an identity column). Idempotent: running it again
 * replaces the function, default or trigger with the same one.
 *
 * @throws HiLoConfigurationError when a name is not a plain SQL identifier or the database is SQLite
 *   (nothing is contacted); HiLoSourceError when a table or column does not exist or is an identity column
 * @example
 * ```ts
 * const client = await connect('postgres://app@localhost/shop');
 * await ensureKeyGuard(client, [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * ```
 */
export async function ensureKeyGuard(client: SqlClient, targets: readonly KeyGuardTarget[]): Promise<void> {
  const dialect = checkDialect(client.dialect);
  let statements = keyGuardSql(dialect, targets);
  if (dialect === 'mysql' && (await isMariaDb(client))) {
    // MariaDB replaces a trigger in one statement: no moment without the guard while it is reinstalled
    statements = statements.filter((sql) => !sql.startsWith('drop trigger if exists ')).map((sql) => sql.replace(/^create trigger /, 'create or replace trigger '));
  }
  const checked = targets.map(check);
  for (const target of checked) {
    let reason: string | undefined;
    try {
      reason = await problem(client, target);
    } catch (error) {
      throw toHiLoError(error, { dialect, action: `looking up column ${where(target)}` });
    }
    if (reason !== undefined) throw new HiLoSourceError(`Cannot guard ${describe(where(target))} (segment ${describe(target.segment)}): ${reason}.`);
  }
  try {
    await client.transaction(async (tx) => {
      await takeDdlLock(dialect, tx);
      try {
        for (const sql of statements) {
          try {
            await tx.query(sql);
          } catch (error) {
            throw toHiLoError(error, { dialect, action: `installing the key guard (${sql.split('\n')[0]})`, missingHint: { library: 'Create the table first, then install the guard.', cli: 'Create the table first, then install the guard.' } });
          }
        }
      } finally {
        if (dialect === 'mysql') await tx.query('select release_lock(?) as released', [DDL_LOCK_NAME]).catch(() => undefined);
      }
    });
  } catch (error) {
    throw toHiLoError(error, { dialect, action: 'installing the key guard' });
  }
}

/** Name (MariaDB/MySQL `GET_LOCK`) of the lock that serialises hilo's DDL across processes. */
const DDL_LOCK_NAME = 'hilo:ddl';
/** Key of the same lock on PostgreSQL (`pg_advisory_xact_lock`): "hilo" in ASCII, unlikely to collide with an app's own keys. */
const DDL_LOCK_KEY = 0x68696c6f;
/** Seconds a MariaDB/MySQL installer waits for another one to finish. */
const DDL_LOCK_WAIT_SECONDS = 60;

/**
 * Serialises concurrent installers (every replica runs `hilo init --guard` at start-up): PostgreSQL's
 * `create or replace function` and `alter table … set default` race on the catalog ("tuple concurrently
 * updated", a duplicate in pg_proc) when two sessions run them at once. PostgreSQL releases the lock at
 * commit; MariaDB's DDL commits implicitly, so its session lock is released explicitly.
 */
async function takeDdlLock(dialect: KeyGuardDialect, tx: SqlExecutor): Promise<void> {
  if (dialect === 'postgres') {
    await tx.query('select pg_advisory_xact_lock($1)', [DDL_LOCK_KEY]);
    return;
  }
  const { rows } = await tx.query<{ got: unknown }>('select get_lock(?, ?) as got', [DDL_LOCK_NAME, DDL_LOCK_WAIT_SECONDS]);
  if (Number(rows[0]?.got) !== 1) {
    throw new HiLoSourceError(`Another process held hilo's DDL lock "${DDL_LOCK_NAME}" for more than ${DDL_LOCK_WAIT_SECONDS} s while installing the key guard; run it again.`);
  }
}

/** Whether the MySQL-dialect server behind `client` is MariaDB (which has `CREATE OR REPLACE TRIGGER`). */
async function isMariaDb(client: SqlClient): Promise<boolean> {
  try {
    const { rows } = await client.query<{ v: unknown }>('select version() as v');
    return /mariadb/i.test(String(rows[0]?.v));
  } catch {
    return false;
  }
}
