// How a property is recognised as a hi/lo key: a marker on its `onCreate` hook. A leaf module, so that the
// key helpers (key.ts) and the runtime that finds them (runtime.ts) both depend on it and not on each other.
import type { EntityManager } from '@mikro-orm/core';

/** Options of {@link hiloKey}, {@link hiloKeyOptions} and the `@HiLoKey()` decorators. */
export interface HiLoKeyOptions {
  /**
   * The key space this entity draws from: one sequence or hi-table row per segment.
   * @default the entity's table name
   * @example
   * ```ts
   * id: hiloKey({ segment: 'orders' })
   * ```
   */
  segment?: string;
}

/** What the adapter recognises a hi/lo key by: a marker on its `onCreate` function. */
export const HILO_KEY = Symbol.for('hilo-mikro-orm.key');

/** The `onCreate` hook of a hi/lo key, carrying its options. */
export interface HiLoOnCreate {
  (entity: object, em: EntityManager): number | bigint | string | undefined;
  readonly [HILO_KEY]: HiLoKeyOptions;
}

/** Whether `value` is the `onCreate` hook of a hi/lo key. */
export function isHiLoOnCreate(value: unknown): value is HiLoOnCreate {
  return typeof value === 'function' && HILO_KEY in value;
}
