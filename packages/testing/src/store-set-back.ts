import { connect } from 'hilo-core';

/**
 * Sets every hi store in the database at `url` back to its start, as a restore or reset would: each hilo
 * sequence (`*_hilo_seq`, in any PostgreSQL schema; in the current MariaDB database) restarts at 1 and each
 * `hilo_segments` row goes back to 1. Returns how many stores it changed, so that a test can tell that there
 * was something to set back.
 */
export async function setBackHiStores(url: string): Promise<number> {
  const client = await connect(url);
  try {
    const postgres = client.dialect === 'postgres';
    const stores = await client.query<{ s: string; n: string; k: string }>(
      postgres
        ? `select n.nspname as s, c.relname as n, case c.relkind when 'S' then 'sequence' else 'table' end as k
             from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where (c.relkind = 'S' and c.relname like '%\\_hilo\\_seq') or (c.relkind = 'r' and c.relname = 'hilo_segments')`
        : `select table_schema as s, table_name as n, case table_type when 'SEQUENCE' then 'sequence' else 'table' end as k
             from information_schema.tables where table_schema = database()
              and ((table_type = 'SEQUENCE' and table_name like '%\\_hilo\\_seq') or table_name = 'hilo_segments')`,
    );
    const quote = (name: string) => (postgres ? `"${name}"` : `\`${name}\``);
    for (const { s, n, k } of stores.rows) {
      const name = `${quote(s)}.${quote(n)}`;
      await client.query(
        k === 'sequence' ? `alter sequence ${name} restart with 1` : `update ${name} set next_value = 1`,
      );
    }
    return stores.rows.length;
  } finally {
    await client.close();
  }
}

/** The `code` of an error and of every error in its `cause` chain (adapters may wrap hilo's error). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error; typeof e === 'object' && e !== null; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/**
 * Runs `statements` in order on the database at `url` (PostgreSQL or MariaDB/MySQL), one connection, then closes
 * it: a test's own set-up and inspection, never the code under test's connection.
 */
export async function runStatements(url: string, statements: readonly string[]): Promise<void> {
  const client = await connect(url, { poolSize: 1 });
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.close();
  }
}

/** A PostgreSQL `url` whose connections all start with `search_path` set to `schema`, as an app's pool may. */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
