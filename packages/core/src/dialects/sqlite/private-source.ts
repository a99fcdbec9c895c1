import { largestStoredKey } from './stored-keys.js';
import { memorySource, type MemorySource } from '../../sources/memory-source.js';
import type { PrivateDatabaseQuery, StoredKeyColumn } from './stored-keys.js';

export type { PrivateDatabaseQuery, StoredKeyColumn } from './stored-keys.js';
import type { HiSource } from '../../engine/types.js';

/** Per owner (the object the database lives and dies with), the counters of its segments. */
const counters = new WeakMap<object, MemorySource>();

/**
 * The hi source of a SQLite database private to this process (`:memory:`). Such a database lives on one
 * connection and dies with it: no other connection or process can write it, and a hi table in it could only
 * be updated inside the application's own transactions, where a rollback would hand keys out again. So the
 * counters live in this process, one per `owner` and segment. Before a segment's first reservation the
 * counter is raised above the largest key already stored in that segment's columns (rows written before
 * hilo started); it never goes back, and it outlives a generator's `close()` and a second installation on
 * the same owner, so no key is handed out twice for the life of the database.
 *
 * @param owner - the object the database lives and dies with: TypeORM's DataSource, MikroORM's ORM.
 * @param columns - the columns that hold keys, each with its segment.
 * @param query - runs a read on the database itself.
 */
export function privateDatabaseSource(
  owner: object,
  columns: Iterable<StoredKeyColumn>,
  query: PrivateDatabaseQuery,
): HiSource {
  const bySegment = new Map<string, StoredKeyColumn[]>();
  for (const column of columns) bySegment.set(column.segment, [...(bySegment.get(column.segment) ?? []), column]);
  let shared = counters.get(owner);
  if (shared === undefined) counters.set(owner, (shared = memorySource()));
  const source = shared;
  return {
    description: 'the in-process counter of an in-memory SQLite database',
    async prepare(segment) {
      const next = (await largestStoredKey(query, bySegment.get(segment) ?? [])) + 1n;
      const current = source.counters as Map<string, bigint>;
      if ((current.get(segment) ?? 1n) < next) current.set(segment, next);
    },
    reserve: (segment, request) => source.reserve(segment, request),
    release: (segment, unused) => source.release!(segment, unused),
  };
}
