import { HiLoConfigurationError, keyGuardSql } from 'hilo-core';
import {
  keyGuardSchemaSql,
  missingKeyFunctionSql as coreFunctionSql,
  missingKeyTriggerSql as coreTriggerSql,
} from 'hilo-core/adapter-kit';
import type { MissingKeyFunctionOptions as CoreFunctionOptions } from 'hilo-core/adapter-kit';
import type { HiLoPrismaMetadata } from './metadata.js';

// The SQL itself lives in hilo-core (`keyGuardSql`, `ensureKeyGuard`), shared with `hilo init --guard` and
// the other adapters; these wrappers keep hilo-prisma's names and the metadata-driven entry point.

/** The databases the safety-net SQL is written for. `mysql` covers MariaDB and MySQL. */
export type SafetyNetDialect = 'postgres' | 'mysql';

/** The values of {@link SafetyNetDialect}, for checking the one a caller passed. */
const SAFETY_NET_DIALECTS: ReadonlySet<unknown> = new Set<SafetyNetDialect>(['postgres', 'mysql']);

/** Options of {@link missingKeyFunctionSql}. */
export interface MissingKeyFunctionOptions extends CoreFunctionOptions {
  /**
   * Schema of the function (and, for {@link safetyNetSql}, of the tables); unqualified (search path) when absent.
   * @default none
   */
  readonly schema?: string;
}

/**
 * PostgreSQL: `create or replace function hilo_missing_key(segment text)` that raises (SQLSTATE P0001) with a
 * message saying the row came without a hi/lo key. Used as the key column's default —
 * `@default(dbgenerated("hilo_missing_key('orders')"))` — it keeps the key optional in Prisma's types while
 * no row can reach the table without one. Same as hilo-core's `missingKeyFunctionSql`.
 * @example
 * ```ts
 * await pool.query(missingKeyFunctionSql());
 * ```
 */
export function missingKeyFunctionSql(options: MissingKeyFunctionOptions = {}): string {
  return coreFunctionSql(options);
}

/**
 * MariaDB/MySQL: a `BEFORE INSERT` trigger that rejects (SQLSTATE 45000) a row whose key is missing (NULL,
 * or 0 — what a NOT NULL integer column without a default receives). MariaDB does not allow stored
 * functions in column defaults, so the trigger plays the part PostgreSQL's default function does.
 * Returns two statements: drop the trigger if it exists, then create it (one statement each, no DELIMITER).
 * Names must be plain SQL identifiers (letters, digits, `_`). Same as hilo-core's `missingKeyTriggerSql`.
 * @example
 * ```ts
 * for (const sql of missingKeyTriggerSql({ table: 'orders', column: 'id', segment: 'orders' })) await conn.query(sql);
 * ```
 */
export function missingKeyTriggerSql(target: { table: string; column: string; segment: string }): [string, string] {
  return coreTriggerSql(target);
}

/**
 * Every statement that installs the safety net for the models hilo fills: on PostgreSQL the function and a
 * column default per key (`alter table … set default hilo_missing_key('segment')`), on MariaDB/MySQL a
 * trigger per table. Idempotent; run it after the tables exist (a migration, or your test set-up), or let
 * `hilo init --guard TABLE.COLUMN` install the same objects.
 * @example
 * ```ts
 * for (const sql of safetyNetSql('postgres', hiloMetadata)) await pool.query(sql);
 * ```
 */
export function safetyNetSql(
  dialect: SafetyNetDialect,
  metadata: HiLoPrismaMetadata,
  options: MissingKeyFunctionOptions = {},
): string[] {
  if (!SAFETY_NET_DIALECTS.has(dialect)) {
    throw HiLoConfigurationError.invalidOption('dialect', '"postgres" or "mysql"', dialect);
  }
  const targets = [];
  for (const [name, model] of Object.entries(metadata.models)) {
    if (model.key === undefined) continue;
    targets.push({
      segment: model.key.segment,
      table: model.table ?? name,
      column: model.key.column ?? model.key.field,
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      // what a client created without the extension is told (MariaDB's message has room for one line)
      installLine: 'prisma.$extends(hilo(...))',
    });
  }
  // with no keyed model, what belongs to the schema is still installed, as before (PostgreSQL's function)
  if (targets.length === 0) return keyGuardSchemaSql(dialect, options);
  return keyGuardSql(dialect, targets);
}
