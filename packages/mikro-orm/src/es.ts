import { PrimaryKey } from '@mikro-orm/decorators/es';
import { decoratorOptions } from './decorator-options.js';
import type { HiLoKeyDecoratorOptions } from './decorator-options.js';

export type { HiLoKeyDecoratorOptions } from './decorator-options.js';

/**
 * Marks the primary key as a hi/lo key (TC39 decorators, as in TypeScript 5 without
 * `experimentalDecorators`): a `bigint` column mapped to a JavaScript `number` unless `type` says otherwise,
 * `autoincrement: false`, and a key from memory at `em.create()`.
 * @example
 * ```ts
 * import { HiLoKey } from 'hilo-mikro-orm/es';
 *
 * @Entity()
 * class Order {
 *   @HiLoKey()
 *   id!: number;
 * }
 * ```
 */
export function HiLoKey<T extends object>(
  options: HiLoKeyDecoratorOptions<T> = {},
): (value: unknown, context: ClassFieldDecoratorContext<T>) => void {
  const { segment, ...primaryKey } = options;
  return PrimaryKey<T>(decoratorOptions(primaryKey, { segment }));
}
