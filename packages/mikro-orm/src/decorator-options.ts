import { BigIntType, type PrimaryKeyOptions } from '@mikro-orm/core';
import { hiloKeyOptions, type HiLoKeyOptions } from './key.js';

/** Options of the `@HiLoKey()` decorators: the key's segment plus MikroORM's `@PrimaryKey()` options. */
export type HiLoKeyDecoratorOptions<T extends object = object> = HiLoKeyOptions &
  Omit<PrimaryKeyOptions<T>, 'primary' | 'autoincrement' | 'onCreate'>;

/** The `@PrimaryKey()` options behind `@HiLoKey()`: a `bigint` column holding a JS number by default. */
export function decoratorOptions<T extends object>(
  primaryKey: Omit<PrimaryKeyOptions<T>, 'primary' | 'autoincrement' | 'onCreate'>,
  key: HiLoKeyOptions,
): PrimaryKeyOptions<T> {
  return {
    type: new BigIntType('number'),
    ...primaryKey,
    ...(hiloKeyOptions(key) as Pick<PrimaryKeyOptions<T>, 'primary' | 'autoincrement' | 'onCreate'>),
  };
}
