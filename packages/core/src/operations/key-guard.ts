import { HiLoConfigurationError } from '../errors.js';
import { mysqlKeyGuard } from '../dialects/mysql/key-guard.js';
import { postgresKeyGuard } from '../dialects/postgres/key-guard.js';
import { sqliteKeyGuard } from '../dialects/sqlite/key-guard.js';
import { toHiLoError } from './driver-errors.js';
import {
  checkTarget,
  type CheckedTarget,
  type KeyGuardDialect,
  type KeyGuardStatements,
  type KeyGuardTarget,
  type MissingKeyFunctionOptions,
} from '../sql/key-guard-target.js';
import type { SqlClient, SqlDialect } from '../sql/sql-client.js';
import { sourceErrors } from '../error-messages.js';

export type { KeyGuardDialect, KeyGuardTarget, MissingKeyFunctionOptions } from '../sql/key-guard-target.js';
export { MISSING_KEY_FUNCTION, missingKeyFunctionSql } from '../dialects/postgres/key-guard.js';
export { missingKeyTriggerSql } from '../dialects/mysql/key-guard.js';
export { keyGuardTriggerName } from '../sql/key-guard-target.js';

/** Each database's key guard, looked up by name. */
const KEY_GUARDS: Readonly<Record<SqlDialect, KeyGuardStatements>> = {
  postgres: postgresKeyGuard,
  mysql: mysqlKeyGuard,
  sqlite: sqliteKeyGuard,
};

function guardOf(dialect: unknown): KeyGuardStatements {
  if (typeof dialect === 'string' && Object.hasOwn(KEY_GUARDS, dialect)) return KEY_GUARDS[dialect as SqlDialect];
  throw HiLoConfigurationError.invalidOption('dialect', '"postgres", "mysql" or "sqlite"', dialect);
}

/**
 * Whether the adapters install the key guard on `dialect` by default: where the database would store a row that
 * arrives without a key under a key of its own (SQLite's rowid) instead of refusing it.
 */
export function keyGuardByDefault(dialect: SqlDialect): boolean {
  return guardOf(dialect).byDefault === true;
}

/**
 * Every statement that guards `targets`: on PostgreSQL the {@link missingKeyFunctionSql function} (once per
 * schema) and `alter table … alter column … set default hilo_missing_key('segment')` per column; on
 * MariaDB/MySQL a {@link missingKeyTriggerSql trigger} per table; on SQLite a `BEFORE INSERT` trigger per table
 * that aborts a row whose key is NULL (or -1, an `INTEGER PRIMARY KEY` not yet given a rowid). Idempotent. Checks every name and runs
 * nothing: for migrations. {@link ensureKeyGuard} runs them after checking that the columns exist.
 *
 * @throws HiLoConfigurationError when a name is not a plain SQL identifier (or, on SQLite, a schema is given)
 *
 * @example
 * ```ts
 * keyGuardSql('postgres', [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * // [ 'create or replace function "hilo_missing_key"(segment text) …',
 * //   `alter table "orders" alter column "id" set default "hilo_missing_key"('orders')` ]
 * ```
 */
export function keyGuardSql(dialect: KeyGuardDialect | SqlDialect, targets: readonly KeyGuardTarget[]): string[] {
  const guard = guardOf(dialect);
  if (!Array.isArray(targets))
    throw HiLoConfigurationError.invalidOption('targets', 'an array of { segment, table, column? }', targets);
  return guard.statements(targets.map(checkTarget));
}

/**
 * The statements of {@link keyGuardSql} that belong to a schema rather than to a table, for installing the guard
 * before any table is guarded: on PostgreSQL the {@link missingKeyFunctionSql function} (in `options.schema`);
 * none on MariaDB/MySQL and SQLite, whose guard is a trigger per table.
 *
 * @throws HiLoConfigurationError for an unknown dialect, or a schema that is not a plain SQL identifier
 * @example
 * ```ts
 * keyGuardSchemaSql('postgres'); // [ 'create or replace function "hilo_missing_key"(segment text) …' ]
 * keyGuardSchemaSql('mysql');    // []
 * ```
 */
export function keyGuardSchemaSql(
  dialect: KeyGuardDialect | SqlDialect,
  options: MissingKeyFunctionOptions = {},
): string[] {
  return guardOf(dialect).perSchema(options);
}

function where(target: CheckedTarget): string {
  return `${target.schema === undefined ? '' : `${target.schema}.`}${target.table}.${target.column}`;
}

/**
 * Installs the key guard of {@link keyGuardSql} on the database behind `client`, after checking that every
 * table and column exists (and, on PostgreSQL, is not an identity column). Idempotent: running it again
 * replaces the function, default or trigger with the same one. The statements run in one transaction; on a client
 * whose database has no interactive transactions but runs a `batch` all or none ({@link d1Client}), in one batch.
 *
 * @throws HiLoConfigurationError when a name is not a plain SQL identifier
 *   (nothing is contacted); HiLoSourceError when a table or column does not exist or is an identity column
 * @example
 * ```ts
 * const client = await connect('postgres://app@localhost/shop');
 * await ensureKeyGuard(client, [{ segment: 'orders', table: 'orders', column: 'id' }]);
 * ```
 */
export async function ensureKeyGuard(client: SqlClient, targets: readonly KeyGuardTarget[]): Promise<void> {
  const guard = guardOf(client.dialect);
  const dialect = client.dialect;
  const statements = await guard.forServer(client, keyGuardSql(dialect, targets));
  const checked = targets.map(checkTarget);
  for (const target of checked) {
    let reason: string | undefined;
    try {
      reason = await guard.problem(client, target);
    } catch (error) {
      throw toHiLoError(error, { dialect, action: `looking up column ${where(target)}` });
    }
    if (reason !== undefined) throw sourceErrors.cannotGuard(where(target), target.segment, reason);
  }
  // a client without interactive transactions (D1) runs them as one batch: a guard dropped and not created again
  // is never left behind
  if (client.batch !== undefined && guard.batchable === true) {
    try {
      await client.batch(statements.map((sql) => ({ sql })));
    } catch (error) {
      throw toHiLoError(error, {
        dialect,
        action: 'installing the key guard',
        missingHint: {
          library: 'Create the table first, then install the guard.',
          cli: 'Create the table first, then install the guard.',
        },
      });
    }
    return;
  }
  try {
    await client.transaction(async (tx) => {
      await guard.lock(tx);
      try {
        for (const sql of statements) {
          try {
            await tx.query(sql);
          } catch (error) {
            throw toHiLoError(error, {
              dialect,
              action: `installing the key guard (${sql.split('\n')[0]})`,
              missingHint: {
                library: 'Create the table first, then install the guard.',
                cli: 'Create the table first, then install the guard.',
              },
            });
          }
        }
      } finally {
        await guard.unlock(tx);
      }
    });
  } catch (error) {
    throw toHiLoError(error, { dialect, action: 'installing the key guard' });
  }
}
