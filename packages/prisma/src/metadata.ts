import { checkInteger, MAX_BLOCK_SIZE, validateSegment } from 'hilo-core/adapter-kit';
import { HiLoConfigurationError } from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/** The Prisma scalar types a hi/lo key can have. */
export type HiLoKeyScalar = 'Int' | 'BigInt';

/** How one model's key is generated. Present only on models whose key hilo fills. */
export interface HiLoModelKey {
  /** The Prisma field that holds the key, e.g. `id`. */
  readonly field: string;
  /** `Int` keys are JavaScript numbers (at most 2^31 − 1); `BigInt` keys are bigints. */
  readonly type: HiLoKeyScalar;
  /** The key space the model draws from; one sequence or hi-table row per segment. */
  readonly segment: string;
  /** Keys reserved per round trip for this segment; the generator's `blockSize` when absent. */
  readonly blockSize?: number;
  /** The key column in the database (differs from `field` with `@map`). */
  readonly column?: string;
}

/**
 * A scalar field's default, as `createGraph()` treats it: `'now'` (`@default(now())`, `@updatedAt`) and a literal
 * (`{ value }`) are filled in as Prisma does; `'prisma'` (`uuid()`, `cuid()`, `nanoid()`, `ulid()`) must be set in the
 * input; `'database'` (`dbgenerated()`, `autoincrement()`, `sequence()`) is left to the database.
 */
export type HiLoFieldDefault = 'now' | 'prisma' | 'database' | { readonly value: unknown };

/** A relation field as `createGraph()` reads it. */
export interface HiLoRelationMetadata {
  /** The scalar fields holding the foreign key, when this model holds it (`@relation(fields: […])`). */
  readonly fields?: readonly string[];
  /** The fields of the other model the foreign key references. */
  readonly references?: readonly string[];
  /** The relation field on the other model, which holds the foreign key when this one does not. */
  readonly opposite?: string;
}

/** What `createGraph()` needs of a model beyond its key, written by the generator. */
export interface HiLoGraphModelMetadata {
  /** Each scalar field's column (`@map`, else the field's name). */
  readonly columns: Readonly<Record<string, string>>;
  /** The scalar fields with a default (or `@updatedAt`), and what the default is. */
  readonly defaults?: Readonly<Record<string, HiLoFieldDefault>>;
  /** Each relation field: its foreign key, or the field on the other side that holds it. */
  readonly relations: Readonly<Record<string, HiLoRelationMetadata>>;
}

/** What hilo knows about one model. */
export interface HiLoModelMetadata {
  /** The table name (`@@map`), used by the safety-net SQL helpers. */
  readonly table?: string;
  /**
   * The table's schema (`@@schema`, PostgreSQL), where verified blocks look for its stored keys; without it, the
   * driver adapter's `schema` option (`new PrismaPg(pool, { schema })`), else the default schema of hilo's
   * connection.
   */
  readonly schema?: string;
  /** The key hilo fills, absent for models it leaves alone. */
  readonly key?: HiLoModelKey;
  /** Relation fields → the model they point at, used to find nested writes in `args.data`. */
  readonly relations?: Readonly<Record<string, string>>;
  /** Columns, defaults and foreign keys, for `createGraph()`; the generator writes it (hand-written metadata may not). */
  readonly graph?: HiLoGraphModelMetadata;
}

/**
 * Everything the extension needs to know about the schema: written by the `hilo-prisma/generator` Prisma
 * generator into the generated folder, or written by hand.
 * @example
 * ```ts
 * const metadata = {
 *   provider: 'postgresql',
 *   models: {
 *     Order: { key: { field: 'id', type: 'BigInt', segment: 'orders' }, relations: { items: 'OrderItem' } },
 *     OrderItem: { key: { field: 'id', type: 'BigInt', segment: 'order_items' }, relations: { order: 'Order' } },
 *   },
 * } as const satisfies HiLoPrismaMetadata;
 * ```
 */
export interface HiLoPrismaMetadata {
  /**
   * The datasource provider (`postgresql`, `mysql`, …). `mysql` (MySQL and MariaDB) gives each model hilo's
   * `createManyAndReturn`, which Prisma has not on that provider; write it in metadata you write by hand.
   */
  readonly provider?: string;
  /** Per model name, as written in the schema (`Order`, not `order`). */
  readonly models: Readonly<Record<string, HiLoModelMetadata>>;
}

/** A model's key type in JavaScript, from metadata typed `as const`: `bigint` for BigInt, `number` for Int. */
export type HiLoKeyOf<M extends HiLoPrismaMetadata, Model> = Model extends keyof M['models']
  ? M['models'][Model] extends { readonly key: { readonly type: 'BigInt' } }
    ? bigint
    : M['models'][Model] extends { readonly key: { readonly type: 'Int' } }
      ? number
      : never
  : number | bigint;

/** The model name Prisma records on a model delegate (`prisma.order` → `'Order'`). */
export type PrismaModelName<T> = T extends { [K: symbol]: { types: { payload: { name: infer N } } } } ? N : string;

/** The shape of the Prisma client's private runtime data model, of which hilo reads relation fields only. */
export interface RuntimeDataModelLike {
  readonly models: Readonly<
    Record<
      string,
      { readonly fields: readonly { readonly name: string; readonly kind: string; readonly type: string }[] }
    >
  >;
}

/** Resolved per-model facts the walker and the model methods use. */
export interface ResolvedModel {
  readonly name: string;
  readonly key: HiLoModelKey | undefined;
  readonly relations: ReadonlyMap<string, string>;
  /** Whether the model has a field named `data`, which makes a nested `{ data }` update ambiguous. */
  readonly hasDataField: boolean;
}

const KEY_TYPES: readonly string[] = ['Int', 'BigInt'];

/**
 * Checks the metadata up front and fills missing relation lists from the client's runtime data model,
 * so hand-written metadata only needs the keys.
 */
export function resolveMetadata(
  metadata: HiLoPrismaMetadata,
  runtime: RuntimeDataModelLike | undefined,
): ReadonlyMap<string, ResolvedModel> {
  if (
    typeof metadata !== 'object' ||
    metadata === null ||
    typeof metadata.models !== 'object' ||
    metadata.models === null
  ) {
    throw HiLoConfigurationError.invalidOption(
      'metadata',
      'an object with `models` (import it from the file the hilo-prisma generator writes, e.g. `./generated/prisma/hilo.js`)',
      metadata,
    );
  }
  const names = new Set([...Object.keys(metadata.models), ...Object.keys(runtime?.models ?? {})]);
  const resolved = new Map<string, ResolvedModel>();
  for (const name of names) {
    const meta = metadata.models[name];
    const runtimeFields = runtime?.models[name]?.fields;
    let relations: Map<string, string>;
    if (meta?.relations) {
      relations = new Map(Object.entries(meta.relations));
    } else if (runtimeFields) {
      relations = new Map(runtimeFields.filter((f) => f.kind === 'object').map((f) => [f.name, f.type]));
    } else {
      relations = new Map();
    }
    const key = meta?.key;
    if (key !== undefined) validateKey(name, key);
    const hasDataField = runtimeFields ? runtimeFields.some((f) => f.name === 'data') : relations.has('data');
    resolved.set(name, { name, key, relations, hasDataField });
  }
  for (const model of resolved.values()) {
    for (const [field, target] of model.relations) {
      if (!resolved.has(target)) {
        throw configurationErrors.relationToUnknownModel(model.name, field, target);
      }
    }
  }
  return resolved;
}

function validateKey(model: string, key: HiLoModelKey): void {
  if (typeof key.field !== 'string' || key.field.length === 0) {
    throw HiLoConfigurationError.invalidOption(
      `models.${model}.key.field`,
      'the name of the key field, e.g. "id"',
      key.field,
    );
  }
  if (!KEY_TYPES.includes(key.type)) {
    throw HiLoConfigurationError.invalidOption(`models.${model}.key.type`, '"Int" or "BigInt"', key.type);
  }
  validateSegment(key.segment, `models.${model}.key.segment`);
  if (key.blockSize !== undefined)
    checkInteger(`models.${model}.key.blockSize`, key.blockSize, { max: MAX_BLOCK_SIZE });
}
