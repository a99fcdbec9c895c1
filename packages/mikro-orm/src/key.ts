import { p, type EntityManager } from '@mikro-orm/core';
import { HiLoConfigurationError } from 'hilo-core';
import { validateSegment } from 'hilo-core/adapter-kit';
import { HILO_KEY, type HiLoKeyOptions, type HiLoOnCreate } from './key-marker.js';
import { runtimeFor } from './runtime.js';

export type { HiLoKeyOptions } from './key-marker.js';

function validate(options: HiLoKeyOptions): HiLoKeyOptions {
  if (options === null || typeof options !== 'object') {
    throw HiLoConfigurationError.invalidOption('options', 'an object', options);
  }
  if (options.segment !== undefined) validateSegment(options.segment);
  return { ...options };
}

function createOnCreate(options: HiLoKeyOptions): HiLoOnCreate {
  // Synchronous on purpose: MikroORM stores whatever onCreate returns, so a Promise would become the key.
  // When memory is empty this returns undefined and the flush-time fallback awaits a key instead.
  const onCreate = (entity: object, em: EntityManager) => runtimeFor(em).keyFromMemory(entity);
  return Object.assign(onCreate, { [HILO_KEY]: options });
}

/**
 * Property options that make a primary key a hi/lo key: `primary`, `autoincrement: false` and an
 * `onCreate` hook that takes a key from memory, so `em.create()` returns an entity with its key set.
 * For decorators and `EntitySchema`; spread them and add a `type`.
 * @example
 * ```ts
 * @PrimaryKey({ ...hiloKeyOptions(), type: 'bigint' })
 * id!: number;
 * ```
 */
export function hiloKeyOptions(options: HiLoKeyOptions = {}): {
  primary: true;
  autoincrement: false;
  onCreate: HiLoOnCreate;
} {
  return { primary: true, autoincrement: false, onCreate: createOnCreate(validate(options)) };
}

/**
 * A `defineEntity` primary key property whose value is assigned from a hi/lo block in memory at
 * `em.create()`: a `bigint` column mapped to a JavaScript `number`.
 * @example
 * ```ts
 * const Order = defineEntity({
 *   name: 'Order',
 *   properties: { id: hiloKey(), placedAt: p.datetime() },
 * });
 * ```
 */
export function hiloKey(options: HiLoKeyOptions = {}) {
  return p
    .bigint('number')
    .primary()
    .autoincrement(false)
    .onCreate(createOnCreate(validate(options)) as never);
}

/**
 * Like {@link hiloKey}, for keys kept as JavaScript `bigint` (beyond `Number.MAX_SAFE_INTEGER`).
 * @example
 * ```ts
 * properties: { id: hiloBigintKey() }
 * ```
 */
export function hiloBigintKey(options: HiLoKeyOptions = {}) {
  return p
    .bigint('bigint')
    .primary()
    .autoincrement(false)
    .onCreate(createOnCreate(validate(options)) as never);
}
