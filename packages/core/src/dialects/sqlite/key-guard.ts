import { HiLoConfigurationError } from '../../errors.js';
import {
  checkTarget,
  keyGuardTriggerName,
  missingKeyMessage,
  type CheckedTarget,
  type KeyGuardStatements,
  type KeyGuardTarget,
} from '../../sql/key-guard-target.js';
import { sqliteDialect } from './dialect.js';

/**
 * SQLite: a `BEFORE INSERT` trigger named like MariaDB/MySQL's (`<table>_hilo_key`) that aborts the statement
 * when a row arrives without a key. Without it SQLite would store such a row with a key of its own: an
 * `INTEGER PRIMARY KEY` column takes the next rowid (a key hilo hands out later), and another primary key
 * column stores NULL. The trigger sees NULL there, and -1 in an `INTEGER PRIMARY KEY` whose rowid is not yet
 * assigned; hilo's keys start at 1. Two statements: drop the trigger if it exists, create it.
 *
 * @example
 * ```ts
 * for (const sql of missingKeySqliteTriggerSql({ segment: 'orders', table: 'orders', column: 'id' })) await client.query(sql);
 * ```
 */
export function missingKeySqliteTriggerSql(target: KeyGuardTarget): [string, string] {
  const { segment, table, column, schema } = checkTarget(target);
  if (schema !== undefined)
    throw HiLoConfigurationError.invalidOption('schema', 'left out: hilo uses no SQLite schemas', schema);
  const trigger = sqliteDialect.quote(keyGuardTriggerName(table));
  const key = `new.${sqliteDialect.quote(column)}`;
  const message = missingKeyMessage(`'${segment}'`);
  return [
    `drop trigger if exists ${trigger}`,
    `create trigger ${trigger} before insert on ${sqliteDialect.quote(table)} when ${key} is null ` +
      `or ${key} = -1 begin select raise(abort, ${sqliteDialect.literal(message)}); end`,
  ];
}

/** SQLite's key guard: a trigger per table, replaced inside the transaction that holds the write lock. */
export const sqliteKeyGuard: KeyGuardStatements = {
  statements: (targets) => targets.flatMap((target) => missingKeySqliteTriggerSql(target)),
  // the trigger is per table: nothing belongs to the schema
  perSchema: () => [],
  async problem(client, { table, column }: CheckedTarget) {
    const { rows } = await client.query<{ name: string }>('select name from pragma_table_info(?)', [table]);
    if (rows.length === 0) return `table "${table}" does not exist; create the table first`;
    if (!rows.some((row) => String(row.name).toLowerCase() === column.toLowerCase()))
      return `table "${table}" has no column "${column}"`;
    return undefined;
  },
  forServer: async (_client, statements) => statements,
  // the transaction ensureKeyGuard runs the statements in holds SQLite's one write lock
  lock: async () => undefined,
  unlock: async () => undefined,
};
