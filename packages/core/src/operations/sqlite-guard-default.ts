import { HiLoConfigurationError } from '../errors.js';
import { sqliteKeyGuardCondition } from '../dialects/sqlite/key-guard.js';
import type { StoredKeyColumn, StoredKeys } from '../engine/types.js';
import { checkTarget, keyGuardTriggerName, type CheckedTarget, type KeyGuardTarget } from '../sql/key-guard-target.js';
import type { SqlClient } from '../sql/sql-client.js';
import { ensureKeyGuard, keyGuardByDefault } from './key-guard.js';
import { sourceErrors } from '../error-messages.js';

/**
 * The key guard an adapter installs on SQLite by default (`keyGuard`, see {@link sqliteDefaultKeyGuard}).
 */
export interface DefaultKeyGuard {
  /**
   * Installs the guard on every target table that exists and is not guarded yet; a table not created yet is
   * guarded by a later call. Reads `sqlite_master` once, and writes only where a guard is missing.
   * Concurrent calls share one run.
   * @throws HiLoSourceError when a guard cannot be installed (a key column missing, a read-only file), naming
   *   `keyGuard: false`
   */
  ensure(): Promise<void>;
  /**
   * `storedKeys` with {@link ensure} run before each of its probes, so that every reservation (each verified
   * one probes) guards the tables created since the last. `undefined` (verification off) stays `undefined`.
   */
  around(storedKeys: StoredKeys | undefined): StoredKeys | undefined;
}

/** What the adapter says a missing key's fix is, per segment (at most 60 printable characters). */
export type InstallLine = (segment: string) => string;

/**
 * Why an adapter needs a key guard on SQLite, and only there: PostgreSQL and MariaDB/MySQL refuse a row whose key
 * column got no value (`NOT NULL`), but SQLite stores it, and an `INTEGER PRIMARY KEY` then takes the next rowid —
 * a key hilo hands out later, so a later insert (or the next verified start) fails. A forgotten install (Kysely's
 * `plugins: [hilo.plugin]`, Drizzle's `$defaultFn`) writes such rows. The guard is the trigger of
 * `keyGuardSql('sqlite', …)` (`<table>_hilo_key`, aborting a row whose key is NULL or -1), its message naming the
 * adapter's install line.
 *
 * Returns `undefined` on any other database (`keyGuardByDefault`: they refuse such a row on `NOT NULL`, and their
 * guards stay `hilo init --guard`'s).
 * A table is taken as guarded when a trigger of that name on it has the guard's condition, whatever its message
 * (one `hilo init --guard` installed is kept): restarts and other processes find it and write nothing, and two
 * installing at once write the same trigger inside SQLite's one write lock. A table with a schema (an attached
 * database) is not guarded.
 *
 * @param targets - asked at each {@link DefaultKeyGuard.ensure}: the adapter's key columns (they may grow).
 * @param installLine - the fix the message names, e.g. `() => 'new Kysely({ dialect, plugins: [hilo.plugin] })'`;
 *   without it, every adapter's line.
 * @example
 * ```ts
 * const guard = sqliteDefaultKeyGuard(client, () => columns, () => 'new Kysely({ dialect, plugins: [hilo.plugin] })');
 * await guard?.ensure();
 * ```
 */
export function sqliteDefaultKeyGuard(
  client: SqlClient,
  targets: () => readonly StoredKeyColumn[],
  installLine?: InstallLine,
): DefaultKeyGuard | undefined {
  if (!keyGuardByDefault(client.dialect)) return undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const wanted = (): CheckedTarget[] => {
    const seen = new Map<string, CheckedTarget>();
    for (const c of targets()) {
      if (c.schema !== undefined) continue;
      const line = installLine?.(c.segment);
      const target: KeyGuardTarget = {
        segment: c.segment,
        table: c.table,
        column: c.column,
        ...(line === undefined ? {} : { installLine: line }),
      };
      const checked = checkTarget(target);
      // one trigger per table: the first key column of a table is the one guarded
      const key = checked.table.toLowerCase();
      if (!seen.has(key)) seen.set(key, checked);
    }
    return [...seen.values()];
  };

  /** The schema version and targets of the last check that found every existing table guarded. */
  let checked: { version: number; signature: string } | undefined;
  /** Whether the schema version can be read: Cloudflare D1 refuses `pragma_schema_version` (SQLITE_AUTH). */
  let versionReadable = true;

  /** The schema version, or `undefined` where the database refuses to say (D1: sqlite_master is read each time). */
  const schemaVersion = async (): Promise<number | undefined> => {
    if (!versionReadable) return undefined;
    try {
      const { rows } = await client.query<{ v: unknown }>('select schema_version as v from pragma_schema_version');
      return Number(rows[0]?.v);
    } catch (error) {
      if (!/not authorized|SQLITE_AUTH/i.test(String((error as Error | null)?.message))) throw error;
      versionReadable = false;
      return undefined;
    }
  };

  const run = async (): Promise<void> => {
    const list = wanted();
    if (list.length === 0) return;
    // any DDL (a table created, dropped or rebuilt, a trigger dropped) moves the schema version: while it stands
    // still and the targets are the same, the last check holds, and one integer read is all a reservation costs
    // (on D1, which refuses to tell it, each check reads the guarded tables' rows of sqlite_master below)
    const signature = JSON.stringify(list.map((t) => [t.table, t.column]));
    const now = await schemaVersion();
    if (now !== undefined && checked !== undefined && checked.version === now && checked.signature === signature)
      return;
    // only the rows of the guarded tables: the tables themselves and their triggers
    const names = list.map((t) => t.table.toLowerCase());
    const marks = names.map(() => '?').join(', ');
    const { rows } = await client.query<{ type: string; name: string; tbl: string; sql: string | null }>(
      `select type, lower(name) as name, lower(tbl_name) as tbl, sql from sqlite_master ` +
        `where type in ('table', 'trigger') and lower(tbl_name) in (${marks})`,
      names,
    );
    const tables = new Set(rows.filter((r) => r.type === 'table').map((r) => r.name));
    const missing = list.filter((t) => {
      const table = t.table.toLowerCase();
      if (!tables.has(table)) return false;
      const trigger = keyGuardTriggerName(t.table).toLowerCase();
      const condition = sqliteKeyGuardCondition(t.column).toLowerCase();
      return !rows.some(
        (r) =>
          r.type === 'trigger' &&
          r.name === trigger &&
          r.tbl === table &&
          (r.sql ?? '').toLowerCase().replace(/\s+/g, ' ').includes(condition),
      );
    });
    if (missing.length === 0) {
      if (now !== undefined) checked = { version: now, signature };
      return;
    }
    try {
      await ensureKeyGuard(client, missing);
    } catch (error) {
      const where = missing.map((t) => `${t.table}.${t.column}`).join(', ');
      throw sourceErrors.sqliteGuardNotInstalled(where, error);
    }
  };

  const ensure = (): Promise<void> => {
    if (running !== undefined) {
      // a table may have appeared since the running check read sqlite_master: check once more after it
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await run();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  return {
    ensure,
    around(storedKeys) {
      if (storedKeys === undefined) return undefined;
      return {
        ...storedKeys,
        largest: async (segment, signal) => {
          await ensure();
          return storedKeys.largest(segment, signal);
        },
        within: async (segment, block, signal) => {
          await ensure();
          return storedKeys.within(segment, block, signal);
        },
      };
    },
  };
}

/**
 * Checks an adapter's `keyGuard` option: `undefined` (on), `true` or `false`.
 * @throws HiLoConfigurationError for anything else
 */
export function checkKeyGuardOption(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') throw HiLoConfigurationError.invalidOption('keyGuard', 'true or false', value);
  return value;
}
