import type { DataSource } from 'typeorm';
import { memorySource, type Block, type HiSource, type MemorySource, type ReserveRequest } from 'hilo-core';

/** Per DataSource and segment: the in-process counters of an in-memory SQLite database. */
const counters = new WeakMap<DataSource, Map<string, MemorySource>>();

/** One table column holding keys of a segment. */
export interface KeyTable {
  readonly segment: string;
  readonly table: string;
  readonly column: string;
}

interface SqliteConnectionLike {
  prepare(sql: string): { get(...params: unknown[]): unknown };
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/** The largest key stored in `table.column`, 0 when the table is empty or does not exist yet. */
function largestKey(connection: SqliteConnectionLike, table: string, column: string): bigint {
  const exists = connection.prepare(`select 1 as found from sqlite_master where type = 'table' and name = ?`).get(table);
  if (!exists) return 0n;
  const row = connection.prepare(`select cast(max(${quote(column)}) as text) as m from ${quote(table)}`).get() as { m: string | null };
  return row.m === null ? 0n : BigInt(row.m);
}

/**
 * The hi source of a `better-sqlite3` DataSource on `:memory:`. Such a database lives on TypeORM's one
 * connection and dies with it: no other connection or process can write it, and a hi table in it could
 * only be updated inside the caller's transactions (a rollback would hand keys out again). So the counter
 * lives in this process, one per DataSource and segment, and starts above the largest key already stored,
 * read once at installation. It is never rolled back, and it survives `close()` and a second
 * `installHiLo()` on the same DataSource, so no key is handed out twice for the life of the database.
 */
export function memoryReservations(dataSource: DataSource, tables: readonly KeyTable[]): HiSource {
  const connection = (dataSource.driver as unknown as { databaseConnection: SqliteConnectionLike }).databaseConnection;
  let bySegment = counters.get(dataSource);
  if (!bySegment) counters.set(dataSource, (bySegment = new Map()));
  const floors = new Map<string, bigint>();
  for (const { segment, table, column } of tables) {
    const largest = largestKey(connection, table, column);
    if (largest > (floors.get(segment) ?? 0n)) floors.set(segment, largest);
  }
  for (const { segment } of tables) {
    const floor = floors.get(segment) ?? 0n;
    const previous = bySegment.get(segment);
    const next = previous?.counters.get(segment);
    // a counter only moves forward: above what is stored and above what an earlier installation reserved
    if (!previous || next === undefined || next <= floor) bySegment.set(segment, memorySource({ start: floor + 1n }));
  }
  const sources = bySegment;
  const sourceOf = (segment: string): MemorySource => {
    let source = sources.get(segment);
    if (!source) sources.set(segment, (source = memorySource()));
    return source;
  };
  return {
    description: 'the in-process counter of an in-memory SQLite database',
    reserve: (segment: string, request: ReserveRequest) => sourceOf(segment).reserve(segment, request),
    release: (segment: string, unused: Block) => sourceOf(segment).release!(segment, unused),
  };
}
