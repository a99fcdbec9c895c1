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
 * The `when` clause of SQLite's key guard on `table.column`, as {@link missingKeySqliteTriggerSql} writes it: what
 * tells a trigger that guards that column, whatever its message, from any other.
 */
export function sqliteKeyGuardCondition(column: string): string {
  const key = `new.${sqliteDialect.quote(column)}`;
  return `when ${key} is null or ${key} = -1`;
}

/**
 * What SQLite's key guard says: with the target's `installLine`, that one line (the adapter's that guarded the
 * table); without it, every adapter's (as PostgreSQL's says). SQLite puts no limit on the message.
 */
function sqliteMissingKeyMessage(segment: string, installLine: string | undefined): string {
  if (installLine === undefined) return missingKeyMessage(`'${segment}'`);
  return (
    `hilo: a row of segment '${segment}' arrived without a key, so hilo is not installed on the client that ` +
    `inserted it. Install it with ${installLine}, or assign the key from hilo (generator.next('${segment}')) ` +
    `before the INSERT.`
  );
}

/**
 * SQLite: a `BEFORE INSERT` trigger named like MariaDB/MySQL's (`<table>_hilo_key`) that aborts the statement
 * when a row arrives without a key. Without it SQLite would store such a row with a key of its own: an
 * `INTEGER PRIMARY KEY` column takes the next rowid (a key hilo hands out later), and another primary key
 * column stores NULL. The trigger sees NULL there, and -1 in an `INTEGER PRIMARY KEY` whose rowid is not yet
 * assigned (SQLite gives the rowid after the BEFORE triggers ran); hilo's keys start at 1. Two statements:
 * drop the trigger if it exists, create it. The message names the target's `installLine` when it has one.
 *
 * @example
 * ```ts
 * for (const sql of missingKeySqliteTriggerSql({ segment: 'orders', table: 'orders', column: 'id' })) await client.query(sql);
 * ```
 */
export function missingKeySqliteTriggerSql(target: KeyGuardTarget): [string, string] {
  const { segment, table, column, schema, installLine } = checkTarget(target);
  if (schema !== undefined)
    throw HiLoConfigurationError.invalidOption('schema', 'left out: hilo uses no SQLite schemas', schema);
  const trigger = sqliteDialect.quote(keyGuardTriggerName(table));
  const message = sqliteMissingKeyMessage(segment, installLine);
  return [
    `drop trigger if exists ${trigger}`,
    `create trigger ${trigger} before insert on ${sqliteDialect.quote(table)} ${sqliteKeyGuardCondition(column)} ` +
      `begin select raise(abort, ${sqliteDialect.literal(message)}); end`,
  ];
}

/** SQLite's key guard: a trigger per table, replaced inside the transaction that holds the write lock. */
export const sqliteKeyGuard: KeyGuardStatements = {
  // a key-less row would take the next rowid: the adapters install this guard unless told not to
  byDefault: true,
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
  // the transaction ensureKeyGuard runs the statements in holds SQLite's one write lock (D1: its batch, all or none)
  batchable: true,
  lock: async () => undefined,
  unlock: async () => undefined,
};
