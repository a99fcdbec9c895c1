// Graph-load rows backed by the caller's objects (property names → column names, keys written back), and the target
// for a driver pool: what an adapter whose rows are objects keyed by property (Prisma's create inputs) needs.
import { mysqlGraphTarget, type MysqlGraphPoolLike } from '../dialects/mysql/graph-target.js';
import { pgGraphTarget, type PgGraphPoolLike } from '../dialects/postgres/graph-target.js';
import type { GraphTarget } from '../sql/bulk.js';

/** How a graph-load row's columns map to the properties of the caller's object, made for {@link propertyRow}. */
export interface GraphRowMapping {
  /** Column → the property its value is read from. */
  readonly read: ReadonlyMap<string, string>;
  /** Column → a value for it when its property is `undefined` (a default the ORM fills in itself). */
  readonly fill?: ReadonlyMap<string, () => unknown>;
  /**
   * Columns the load sets (the key, a child's reference to its parent) → the property the value is written back to,
   * converted to the property's type (a bigint key as a number, for an `Int` field).
   */
  readonly write: ReadonlyMap<
    string,
    { readonly property: string; readonly convert: (key: number | bigint) => unknown }
  >;
}

/**
 * A row for hilo-core's `loadGraph()` read by column name from `object`'s properties, as `mapping` says; a key the load
 * sets (its own, its parent's) is kept for the write and written back into `object`, converted, so the caller knows it.
 * @example
 * ```ts
 * const row = propertyRow(item, {
 *   read: new Map([['item_id', 'id'], ['order_id', 'orderId'], ['sku', 'sku']]),
 *   write: new Map([['item_id', { property: 'id', convert: BigInt }], ['order_id', { property: 'orderId', convert: BigInt }]]),
 * });
 * ```
 */
export function propertyRow(object: Record<string, unknown>, mapping: GraphRowMapping): Record<string, unknown> {
  const set = new Map<string, unknown>();
  return new Proxy(object, {
    get(target, column) {
      if (typeof column !== 'string') return undefined;
      if (set.has(column)) return set.get(column);
      const property = mapping.read.get(column);
      const value = property === undefined ? undefined : target[property];
      return value === undefined ? mapping.fill?.get(column)?.() : value;
    },
    set(target, column, value: number | bigint) {
      const written = typeof column === 'string' ? mapping.write.get(column) : undefined;
      if (written === undefined) return false;
      set.set(column as string, value);
      target[written.property] = written.convert(value);
      return true;
    },
  });
}

/**
 * The graph target for a driver pool the application holds: a `pg` `Pool` (binary COPY), or a `mysql2/promise` `Pool`
 * (multi-row INSERTs); each load takes one connection of it, in a transaction of its own. `undefined` for another shape.
 */
export function poolGraphTarget(pool: unknown): GraphTarget | undefined {
  const shape = (typeof pool === 'object' && pool !== null ? pool : {}) as Record<string, unknown>;
  if (typeof shape.getConnection === 'function') return mysqlGraphTarget({ pool: pool as MysqlGraphPoolLike });
  if (typeof shape.connect === 'function') return pgGraphTarget({ pool: pool as PgGraphPoolLike });
  return undefined;
}
