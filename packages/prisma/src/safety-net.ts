import { HiLoConfigurationError } from 'hilo-core';
import type { HiLoPrismaMetadata } from './metadata.js';

/** The databases the safety-net SQL is written for. `mysql` covers MariaDB and MySQL. */
export type SafetyNetDialect = 'postgres' | 'mysql';

/** Options of {@link missingKeyFunctionSql}. */
export interface MissingKeyFunctionOptions {
  /**
   * Schema of the function; unqualified (search path) when absent.
   * @default none
   */
  schema?: string;
}

const FUNCTION = 'hilo_missing_key';

function pgIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function myIdent(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

function myLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function pgLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * PostgreSQL: `create or replace function hilo_missing_key(segment text)` that raises (SQLSTATE P0001) with a
 * message saying the row came without a hi/lo key. Used as the key column's default —
 * `@default(dbgenerated("hilo_missing_key('orders')"))` — it keeps the key optional in Prisma's types while
 * no row can reach the table without one.
 * @example
 * ```ts
 * await pool.query(missingKeyFunctionSql());
 * ```
 */
export function missingKeyFunctionSql(options: MissingKeyFunctionOptions = {}): string {
  const name = options.schema === undefined ? FUNCTION : `${pgIdent(options.schema)}.${FUNCTION}`;
  return [
    `create or replace function ${name}(segment text) returns bigint`,
    `language plpgsql volatile as $hilo$`,
    `begin`,
    `  raise exception using`,
    `    message = format('hilo: a row of segment %s arrived without a key', quote_literal(segment)),`,
    `    hint = 'Insert through the Prisma client extended with hilo(...), or assign the key with nextId().';`,
    `end`,
    `$hilo$`,
  ].join('\n');
}

/**
 * MariaDB/MySQL: a `BEFORE INSERT` trigger that rejects (SQLSTATE 45000) a row whose key is missing (NULL,
 * or 0 — what a NOT NULL integer column without a default receives). MariaDB does not allow stored
 * functions in column defaults, so the trigger plays the part PostgreSQL's default function does.
 * Returns two statements: drop the trigger if it exists, then create it (one statement each, no DELIMITER).
 * @example
 * ```ts
 * for (const sql of missingKeyTriggerSql({ table: 'orders', column: 'id', segment: 'orders' })) await conn.query(sql);
 * ```
 */
export function missingKeyTriggerSql(target: { table: string; column: string; segment: string }): [string, string] {
  const { table, column, segment } = target;
  for (const [name, value] of Object.entries({ table, column, segment })) {
    if (typeof value !== 'string' || value.length === 0) {
      throw HiLoConfigurationError.invalidOption(name, 'a non-empty name', value);
    }
  }
  // a trigger name is at most 64 characters
  const trigger = `${table.slice(0, 50)}_hilo_key`;
  // MESSAGE_TEXT is limited to 128 characters
  const message = `hilo: a row of segment '${segment.slice(0, 40)}' arrived without a key; insert through hilo(...)`;
  const col = `NEW.${myIdent(column)}`;
  return [
    `drop trigger if exists ${myIdent(trigger)}`,
    [
      `create trigger ${myIdent(trigger)} before insert on ${myIdent(table)} for each row`,
      `begin`,
      `  if ${col} is null or ${col} = 0 then`,
      `    signal sqlstate '45000' set message_text = ${myLiteral(message)};`,
      `  end if;`,
      `end`,
    ].join('\n'),
  ];
}

/**
 * Every statement that installs the safety net for the models hilo fills: on PostgreSQL the function and a
 * column default per key (`alter table … set default hilo_missing_key('segment')`), on MariaDB/MySQL a
 * trigger per table. Idempotent; run it after the tables exist (a migration, or your test set-up).
 * @example
 * ```ts
 * for (const sql of safetyNetSql('postgres', hiloMetadata)) await pool.query(sql);
 * ```
 */
export function safetyNetSql(dialect: SafetyNetDialect, metadata: HiLoPrismaMetadata, options: MissingKeyFunctionOptions = {}): string[] {
  if (dialect !== 'postgres' && dialect !== 'mysql') {
    throw HiLoConfigurationError.invalidOption('dialect', '"postgres" or "mysql"', dialect);
  }
  const statements: string[] = dialect === 'postgres' ? [missingKeyFunctionSql(options)] : [];
  for (const [name, model] of Object.entries(metadata.models)) {
    if (model.key === undefined) continue;
    const table = model.table ?? name;
    const column = model.key.column ?? model.key.field;
    if (dialect === 'postgres') {
      const fn = options.schema === undefined ? FUNCTION : `${pgIdent(options.schema)}.${FUNCTION}`;
      const qualified = options.schema === undefined ? pgIdent(table) : `${pgIdent(options.schema)}.${pgIdent(table)}`;
      statements.push(`alter table ${qualified} alter column ${pgIdent(column)} set default ${fn}(${pgLiteral(model.key.segment)})`);
    } else {
      statements.push(...missingKeyTriggerSql({ table, column, segment: model.key.segment }));
    }
  }
  return statements;
}
