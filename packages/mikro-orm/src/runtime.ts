import type { EntityManager, EntityMetadata, EntityProperty, MetadataStorage, MikroORM } from '@mikro-orm/core';
import { type HiLoGenerator } from 'hilo-core';
import {
  BIGINT_MAX,
  columnTypeMaxKey,
  keyToField,
  type KeyColumnLimit,
  type OwnedGenerator,
  type StoredKeyColumn,
  type StoredKeyKind,
} from 'hilo-core/adapter-kit';
import { HILO_KEY, isHiLoOnCreate } from './key-marker.js';
import { configurationErrors } from './error-messages.js';

/** A key column: its segment and limit, and where its keys are stored. */
export type KeyColumn = KeyColumnLimit & StoredKeyColumn;

/** Name under which the per-ORM runtime is registered in MikroORM's configuration. */
export const EXTENSION_NAME = 'hilo-mikro-orm';

/** How a key is stored on the entity, read from the property's mapped type. */
type KeyRuntime = 'number' | 'bigint' | 'string';

/** One entity class with a hi/lo key. */
export interface KeyedEntity {
  readonly className: string;
  readonly segment: string;
  /** Property name of the key. */
  readonly property: string;
  readonly runtime: KeyRuntime;
  /** The largest value the key's column type holds (an `int` column: 2^31 − 1). */
  readonly maxKey: bigint;
  /** `Class.property`, for messages. */
  readonly where: string;
  /** The table and column holding the keys. */
  readonly table: string;
  readonly column: string;
  /** The table's schema, when the entity names one. */
  readonly schema?: string;
  /** `'*'` for an entity of every tenant's schema (`schema: '*'`, `em.fork({ schema })`): each tenant's table is checked. */
  readonly tenants?: '*';
  /** How the keys are written (`'string'` for a string property), for the stored-keys probe. */
  readonly kind: StoredKeyKind;
}

/**
 * What one ORM instance knows about hi/lo: its generator, its keyed entities, and how to start and stop.
 * Reached from any EntityManager (forks included) through the ORM's configuration.
 */
export class HiLoRuntime {
  readonly #entities = new Map<unknown, KeyedEntity>();
  readonly #createGenerator: (orm: MikroORM, columns: readonly KeyColumn[]) => Promise<OwnedGenerator>;
  #owned: OwnedGenerator | undefined;
  #generator: AnyKeyGenerator | undefined;
  #starting: Promise<AnyKeyGenerator | undefined> | undefined;
  #closed = false;

  constructor(createGenerator: (orm: MikroORM, columns: readonly KeyColumn[]) => Promise<OwnedGenerator>) {
    this.#createGenerator = createGenerator;
  }

  /** The entities with a hi/lo key, by class. */
  get entities(): ReadonlyMap<unknown, KeyedEntity> {
    return this.#entities;
  }

  /** The generator, once {@link start} has created it. */
  get generator(): AnyKeyGenerator | undefined {
    return this.#generator;
  }

  /**
   * Finds the hi/lo keys in the discovered metadata, checks them, creates the generator and reserves a block
   * for every segment, so the first `em.create()` is already served from memory.
   */
  start(orm: MikroORM, storage: MetadataStorage): Promise<AnyKeyGenerator | undefined> {
    this.#starting ??= (async () => {
      // MikroORM 7 keeps the metadata in a Map, 6 in a plain object
      const all = storage.getAll() as Map<unknown, EntityMetadata> | Record<string, EntityMetadata>;
      for (const meta of all instanceof Map ? all.values() : Object.values(all)) this.#collect(meta);
      if (this.#entities.size === 0) return undefined;
      // each segment stops at what its narrowest key column holds, so the headroom warning means something
      const owned = await this.#createGenerator(orm, [...this.#entities.values()]);
      this.#owned = owned;
      if (this.#closed) {
        await owned.close();
        return undefined;
      }
      const generator = owned.generator;
      try {
        await generator.warm([...new Set([...this.#entities.values()].map((e) => e.segment))]);
      } catch (error) {
        // MikroORM.init() rejects and the caller gets no ORM to close: release the pool here.
        this.#closed = true;
        await owned.close().catch(() => undefined);
        throw error;
      }
      this.#generator = generator;
      return generator;
    })();
    return this.#starting;
  }

  #collect(meta: EntityMetadata): void {
    if (meta.embeddable || meta.virtual || !meta.class) return;
    const keys = meta.props.filter((prop) => isHiLoOnCreate(prop.onCreate));
    if (keys.length === 0) return;
    const prop = keys[0] as EntityProperty;
    if (keys.length > 1 || !prop.primary || meta.primaryKeys.length !== 1) {
      throw configurationErrors.keyNotOnlyPrimary(
        meta.className,
        keys.map((k) => k.name),
        meta.primaryKeys,
      );
    }
    if (prop.autoincrement) {
      throw configurationErrors.autoincrementKey(meta.className, prop.name);
    }
    const options = isHiLoOnCreate(prop.onCreate) ? prop.onCreate[HILO_KEY] : undefined;
    // MikroORM also calls onCreate with a plain data object (em.upsert() with data), which does not say
    // which entity it is for: bind this ORM's hook to the entity class it was declared on.
    const declaredOn = meta.class;
    prop.onCreate = Object.assign(
      (entity: object, em: EntityManager) => runtimeFor(em).keyFromMemory(entity, declaredOn),
      {
        [HILO_KEY]: options ?? {},
      },
    ) as never;
    const root = meta.root ?? meta;
    this.#entities.set(meta.class, {
      className: meta.className,
      segment: options?.segment ?? root.tableName ?? meta.tableName,
      property: prop.name,
      runtime: runtimeOf(prop),
      maxKey: maxKeyOf(prop),
      where: `${meta.className}.${prop.name}`,
      table: root.tableName ?? meta.tableName,
      column: prop.fieldNames?.[0] ?? prop.name,
      // a string property's keys are decimal digits: hilo-core compares them as numbers in a text column
      kind: runtimeOf(prop) === 'string' ? 'string' : 'number',
      // an entity's own schema qualifies its table in the stored-keys probe; '*' (a schema per tenant, chosen by
      // em.fork({ schema })) is every tenant's: the one segment's blocks are checked against each tenant's table
      ...((root.schema ?? meta.schema) === '*'
        ? { tenants: '*' as const }
        : typeof (root.schema ?? meta.schema) === 'string'
          ? { schema: root.schema ?? meta.schema }
          : {}),
    });
  }

  /** The key entry for an entity instance or class, or undefined when it has no hi/lo key. */
  entryFor(entityOrClass: object): KeyedEntity | undefined {
    const cls = typeof entityOrClass === 'function' ? entityOrClass : entityOrClass.constructor;
    return this.#entities.get(cls);
  }

  /**
   * A key for `entity` from memory, or `undefined` when none is in memory (a reservation is then under way
   * and the flush fills the key).
   */
  keyFromMemory(entity: object, declaredOn?: unknown): number | bigint | string | undefined {
    // an entity instance knows its own class (a subclass, with inheritance); a plain data row does not
    const entry = this.entryFor(entity) ?? (declaredOn === undefined ? undefined : this.#entities.get(declaredOn));
    if (!entry || !this.#generator) return undefined;
    const key = this.#generator.tryNextSync(entry.segment);
    return key === undefined ? undefined : convert(key, entry);
  }

  /** Sets a key on every entity in `entities` whose key is still missing; one bulk reservation per segment. */
  async fillMissing(entities: Iterable<object>): Promise<object[]> {
    const missing = new Map<KeyedEntity, object[]>();
    for (const entity of entities) {
      const entry = this.entryFor(entity);
      if (!entry || (entity as Record<string, unknown>)[entry.property] != null) continue;
      const list = missing.get(entry) ?? [];
      list.push(entity);
      missing.set(entry, list);
    }
    if (missing.size === 0) return [];
    const generator = await this.ready();
    const filled: object[] = [];
    await Promise.all(
      [...missing].map(async ([entry, list]) => {
        const keys = await generator.reserve(entry.segment, list.length);
        list.forEach((entity, i) => {
          (entity as Record<string, unknown>)[entry.property] = convert(keys[i] as number | bigint, entry);
          filled.push(entity);
        });
      }),
    );
    return filled;
  }

  /** `count` keys for the entity class `entry`, converted to the property's type. */
  async keys(entry: KeyedEntity, count: number): Promise<Array<number | bigint | string>> {
    const generator = await this.ready();
    return (await generator.reserve(entry.segment, count)).map((key) => convert(key, entry));
  }

  /** The generator, waiting for start-up if it is still under way. */
  async ready(): Promise<AnyKeyGenerator> {
    const generator = this.#generator ?? (await this.#starting);
    if (!generator) {
      throw configurationErrors.notRunning();
    }
    return generator;
  }

  /** Closes the generator (gives back unused keys where the source can prove it is safe) and its pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    await this.#owned?.close();
  }
}

/**
 * The generator this adapter uses: keys of either type, as the entities' properties map them (named so as not to hide
 * JavaScript's own `Generator`).
 */
export type AnyKeyGenerator = HiLoGenerator<number | bigint>;

function runtimeOf(prop: EntityProperty): KeyRuntime {
  const runtime = String(prop.runtimeType ?? '');
  if (runtime === 'bigint' || runtime === 'string') return runtime;
  return 'number';
}

/** The largest key the property's column holds: from its column type, else 2^63 − 1 (bigint, decimal, text). */
function maxKeyOf(prop: EntityProperty): bigint {
  return columnTypeMaxKey(String(prop.columnTypes?.[0] ?? prop.type ?? '')) ?? BIGINT_MAX;
}

const BIGINT_HINT = { asBigint: 'map it as bigint (hiloBigintKey())' };

function convert(key: number | bigint, entry: KeyedEntity): number | bigint | string {
  return keyToField(key, entry.runtime, entry.where, BIGINT_HINT);
}

/** The runtime registered by the `HiLo` extension on the ORM this EntityManager belongs to. */
export function runtimeFor(em: Pick<EntityManager, 'config'>): HiLoRuntime {
  const runtime = em.config.getExtension<HiLoRuntime>(EXTENSION_NAME);
  if (!runtime) {
    throw configurationErrors.extensionNotRegistered();
  }
  return runtime;
}
