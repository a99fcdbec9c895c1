import { PrimaryColumn, type EntitySchemaColumnOptions, type ValueTransformer } from 'typeorm';
import { resolveColumnOptions, type HiLoColumnOptions, type ResolvedColumnOptions } from './column-options.js';
import { installedForm, keyColumnTransformer } from './key-transformer.js';
import { configurationErrors } from './error-messages.js';

/** The TypeORM column options of a key column, for the decorator and for entity schemas alike. */
const keyColumnOptions = (resolved: ResolvedColumnOptions, transformer: ValueTransformer) => ({
  type: resolved.type,
  transformer,
  ...(resolved.name === undefined ? {} : { name: resolved.name }),
  ...(resolved.comment === undefined ? {} : { comment: resolved.comment }),
});

// Declared hi/lo columns by declaring class; read when a DataSource is wired (inheritance walks the chain).
const declared = new WeakMap<object, Map<string, ResolvedColumnOptions>>();

/**
 * Marks the primary key property of an entity as a hi/lo key: a bigint (or int) primary column whose value
 * hilo assigns at `create()` (or, at the latest, just before INSERT). Works without
 * `emitDecoratorMetadata`. Bad options throw `HiLoConfigurationError` when the class is declared.
 * @example
 * ```ts
 * @Entity()
 * class Order {
 *   @HiLoGeneratedColumn() id!: number;
 * }
 * ```
 */
export function HiLoGeneratedColumn(options?: HiLoColumnOptions): PropertyDecorator {
  const resolved = resolveColumnOptions(options, '@HiLoGeneratedColumn()');
  return (target: object, propertyKey: string | symbol) => {
    if (target === undefined && typeof propertyKey === 'object') {
      // Called as a TC39 decorator (value, context): TypeORM's decorators work only in the legacy mode.
      throw configurationErrors.standardDecorator();
    }
    const owner = (target as { constructor?: unknown }).constructor;
    if (typeof propertyKey !== 'string' || typeof owner !== 'function') {
      throw configurationErrors.decoratorNotOnProperty(String(propertyKey));
    }
    const transformer = keyColumnTransformer(resolved.keyType, `${owner.name}.${propertyKey}`);
    PrimaryColumn(keyColumnOptions(resolved, transformer))(target, propertyKey);
    let columns = declared.get(owner);
    if (!columns) declared.set(owner, (columns = new Map<string, ResolvedColumnOptions>()));
    columns.set(propertyKey, resolved);
  };
}

/** The hi/lo options of `propertyName` declared on `target` or one of its base classes. */
export function findHiLoColumn(target: unknown, propertyName: string): ResolvedColumnOptions | undefined {
  let current: unknown = target;
  while (typeof current === 'function' && current !== Function.prototype) {
    const options = declared.get(current)?.get(propertyName);
    if (options) return options;
    current = Object.getPrototypeOf(current);
  }
  return undefined;
}

const SCHEMA_OPTIONS = Symbol.for('hilo-typeorm.column');

/** The transformer of a {@link hiloColumn}, carrying its hi/lo options for the installation to find. */
type MarkedTransformer = ValueTransformer & { readonly [SCHEMA_OPTIONS]: ResolvedColumnOptions };

/**
 * Column options for an `EntitySchema` entity: the schema-style twin of {@link HiLoGeneratedColumn}, with
 * the same options. It declares a bigint (or int) primary column whose value hilo assigns at `create()`
 * (or, at the latest, just before INSERT). Bad options throw `HiLoConfigurationError` at once.
 * @example
 * ```ts
 * const Order = new EntitySchema<Order>({
 *   name: 'Order',
 *   tableName: 'orders',
 *   columns: { id: hiloColumn(), total: { type: 'int' } },
 * });
 * ```
 */
export function hiloColumn(options?: HiLoColumnOptions): EntitySchemaColumnOptions {
  const resolved = resolveColumnOptions(options, 'hiloColumn()');
  // the entity's name is not known here: the column is named by what the user wrote
  const base = keyColumnTransformer(resolved.keyType, 'A hiloColumn() column');
  const transformer: MarkedTransformer = Object.assign(base, { [SCHEMA_OPTIONS]: resolved });
  // the form an installation swaps in keeps the options too
  Object.assign(installedForm(base)!, { [SCHEMA_OPTIONS]: resolved });
  return { ...keyColumnOptions(resolved, transformer), primary: true };
}

/** The hi/lo options of a column declared with {@link hiloColumn}, found on its transformer. */
export function hiloColumnOptionsOf(transformer: unknown): ResolvedColumnOptions | undefined {
  if (typeof transformer !== 'object' || transformer === null || !(SCHEMA_OPTIONS in transformer)) return undefined;
  return (transformer as MarkedTransformer)[SCHEMA_OPTIONS];
}
