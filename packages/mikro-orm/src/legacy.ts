import { PrimaryKey } from '@mikro-orm/decorators/legacy';
import { decoratorOptions, type HiLoKeyDecoratorOptions } from './decorator-options.js';

export type { HiLoKeyDecoratorOptions } from './decorator-options.js';

/**
 * Marks the primary key as a hi/lo key (legacy TypeScript decorators, `experimentalDecorators`): a `bigint`
 * column mapped to a JavaScript `number` unless `type` says otherwise, `autoincrement: false`, and a key
 * from memory at `em.create()`.
 * @example
 * ```ts
 * import { HiLoKey } from 'hilo-mikro-orm/legacy';
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
): (target: T, propertyName: string) => void {
  const { segment, ...primaryKey } = options;
  return PrimaryKey<T>(decoratorOptions(primaryKey, { segment }));
}
