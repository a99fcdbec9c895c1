import {
  checkTarget,
  keyGuardTriggerName,
  qualifiedTable,
  type KeyGuardStatements,
  type KeyGuardTarget,
} from '../../sql/key-guard-target.js';
import type { SqlClient } from '../../sql/sql-client.js';
import { mysqlDialect } from './dialect.js';
import { sourceErrors } from '../../error-messages.js';

/** Name (`GET_LOCK`) of the lock that serialises hilo's DDL across processes. */
const DDL_LOCK_NAME = 'hilo:ddl';
/** Seconds an installer waits for another one to finish. */
const DDL_LOCK_WAIT_SECONDS = 60;

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
  const { segment, table, column, schema, installLine } = checkTarget(target);
  const trigger = qualifiedTable(mysqlDialect, keyGuardTriggerName(table), schema);
  // MESSAGE_TEXT holds at most 128 characters: room for one install line (the caller's), not for every adapter's
  // as PostgreSQL and SQLite give; the segment is cut to what is left
  const fix = installLine === undefined ? 'install hilo on the client that inserts it' : `use ${installLine}`;
  const frame = `hilo: a row of segment '' arrived without a key: ${fix}`;
  const message = `hilo: a row of segment '${segment.slice(0, 128 - frame.length)}' arrived without a key: ${fix}`;
  const key = `NEW.${mysqlDialect.quote(column)}`;
  return [
    `drop trigger if exists ${trigger}`,
    [
      `create trigger ${trigger} before insert on ${qualifiedTable(mysqlDialect, table, schema)} for each row`,
      `begin`,
      `  if ${key} is null or ${key} = 0 then`,
      `    signal sqlstate '45000' set message_text = ${mysqlDialect.literal(message)};`,
      `  end if;`,
      `end`,
    ].join('\n'),
  ];
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

/** MariaDB/MySQL's key guard: a trigger per table; the DDL lock is a session lock, released by hand. */
export const mysqlKeyGuard: KeyGuardStatements = {
  statements: (targets) => targets.flatMap((target) => missingKeyTriggerSql(target)),
  // the trigger is per table: nothing belongs to the schema
  perSchema: () => [],
  async problem(client, { table, column, schema }) {
    const { rows } = await client.query<{ name: string }>(
      `select column_name as name from information_schema.columns where table_schema = coalesce(?, database()) and table_name = ?`,
      [schema ?? null, table],
    );
    if (rows.length === 0)
      return (
        `table \`${schema === undefined ? '' : `${schema}.`}${table}\` does not exist` +
        `${schema === undefined ? ' in the current database' : ''}; create the table first`
      );
    if (!rows.some((row) => String(row.name).toLowerCase() === column.toLowerCase()))
      return `table \`${table}\` has no column \`${column}\``;
    return undefined;
  },
  async forServer(client, statements) {
    if (!(await isMariaDb(client))) return statements;
    // MariaDB replaces a trigger in one statement: no moment without the guard while it is reinstalled
    return statements
      .filter((sql) => !sql.startsWith('drop trigger if exists '))
      .map((sql) => sql.replace(/^create trigger /, 'create or replace trigger '));
  },
  async lock(tx) {
    const { rows } = await tx.query<{ got: unknown }>('select get_lock(?, ?) as got', [
      DDL_LOCK_NAME,
      DDL_LOCK_WAIT_SECONDS,
    ]);
    if (Number(rows[0]?.got) !== 1) {
      throw sourceErrors.ddlLockHeld(DDL_LOCK_NAME, DDL_LOCK_WAIT_SECONDS);
    }
  },
  async unlock(tx) {
    await tx.query('select release_lock(?) as released', [DDL_LOCK_NAME]).catch(() => undefined);
  },
};
