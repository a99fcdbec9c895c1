import { Utils, type EntityManager, type EntityName } from '@mikro-orm/core';
import { registersAfterInit } from './mikro-orm-internals.js';
import { runtimeFor, type HiLoRuntime, type KeyedEntity } from './runtime.js';
import { configurationErrors } from './error-messages.js';

type EntityManagerClass = new (...args: never[]) => EntityManager;
type Row = Record<string, unknown>;

const isEntity = (row: unknown): boolean => Utils.isEntity(row);

const classes = new WeakMap<EntityManagerClass, EntityManagerClass>();

/**
 * A subclass of the driver's EntityManager whose `insert()` and `insertMany()` fill missing hi/lo keys
 * first: those methods write rows directly and never run `onCreate`. `upsert()` and `upsertMany()` do run
 * `onCreate`, synchronously and for the INSERT only (MikroORM keeps such values out of the conflict update
 * and out of the conflict target); the subclass makes sure enough keys are in memory before they do.
 * `create()` runs `onCreate` hooks at creation, when the ORM would run them at flush (MikroORM 6's default) and
 * has entities with hi/lo keys, so that `em.create()` returns the graph with its keys on 6 as on 7.
 * Forks inherit the class.
 */
export function hiloEntityManagerClass(base: EntityManagerClass): EntityManagerClass {
  const cached = classes.get(base);
  if (cached) return cached;
  const Base = base as unknown as new (...args: unknown[]) => EntityManager;

  class HiLoEntityManager extends Base {
    override create(entityName: unknown, data: unknown, options?: { processOnCreateHooksEarly?: boolean }): never {
      const create = super.create as (...args: unknown[]) => never;
      const config = this.config;
      // MikroORM 7 (by default) runs the hooks at creation already: nothing more to do on its hot path
      if (
        options?.processOnCreateHooksEarly !== undefined ||
        config.get('processOnCreateHooksEarly') === true ||
        runtimeFor(this).entities.size === 0
      ) {
        return create.call(this, entityName, data, options);
      }
      // Any entity of the graph may have a hi/lo key (a keyed child under a parent without one), and the ones
      // MikroORM creates from nested data read the setting from the configuration, not from these options:
      // switch it on, as MikroORM 7's default is, for this call only. em.create() is synchronous, so nothing
      // else runs while it is switched.
      const previous = config.get('processOnCreateHooksEarly');
      config.set('processOnCreateHooksEarly', true);
      try {
        return create.call(this, entityName, data, options);
      } finally {
        config.set('processOnCreateHooksEarly', previous);
      }
    }

    override async insert(entityNameOrEntity: unknown, data?: unknown, options?: unknown): Promise<never> {
      const runtime = runtimeFor(this);
      const rows = await withKeys(this, runtime, entityNameOrEntity, data === undefined ? undefined : [data]);
      const result = await (super.insert as (...args: unknown[]) => Promise<unknown>)(
        entityNameOrEntity,
        rows?.[0],
        options,
      );
      return (keysOf(this, runtime, entityNameOrEntity, rows)?.[0] ?? result) as never;
    }

    override async insertMany(entitiesOrName: unknown, data?: unknown, options?: unknown): Promise<never> {
      const runtime = runtimeFor(this);
      const rows = await withKeys(this, runtime, entitiesOrName, data as unknown[] | undefined);
      const result = await (super.insertMany as (...args: unknown[]) => Promise<unknown[]>)(
        entitiesOrName,
        rows,
        options,
      );
      return (keysOf(this, runtime, entitiesOrName, rows) ?? result) as never;
    }

    override async upsert(entityNameOrEntity: unknown, data?: unknown, options?: unknown): Promise<never> {
      await keysInMemory(this, entityNameOrEntity, data === undefined ? undefined : [data]);
      return (super.upsert as (...args: unknown[]) => Promise<never>)(entityNameOrEntity, data, options);
    }

    override async upsertMany(entityNameOrEntity: unknown, data?: unknown, options?: unknown): Promise<never> {
      await keysInMemory(this, entityNameOrEntity, data as unknown[] | undefined);
      return (super.upsertMany as (...args: unknown[]) => Promise<never>)(entityNameOrEntity, data, options);
    }
  }

  Object.defineProperty(HiLoEntityManager, 'name', { value: `HiLo${base.name}` });
  classes.set(base, HiLoEntityManager);
  return HiLoEntityManager;
}

/**
 * Fills missing keys: on entity instances in place (`entityOrName` is an entity or an array of them and
 * `rows` is undefined), on plain rows in copies. Returns the rows to pass on.
 */
async function withKeys(
  em: EntityManager,
  runtime: HiLoRuntime,
  entityOrName: unknown,
  rows: unknown[] | undefined,
): Promise<unknown[] | undefined> {
  const instances = rows ?? (Array.isArray(entityOrName) ? entityOrName : [entityOrName]);
  await runtime.fillMissing(instances.filter(isEntity) as object[]);
  if (!rows) return rows;
  const entry = keyedEntry(em, runtime, entityOrName);
  if (!entry) return rows;
  const missing = rows.filter((row) => !isEntity(row) && (row as Row)[entry.property] == null);
  if (missing.length === 0) return rows;
  const keys = await runtime.keys(entry, missing.length);
  let i = 0;
  return rows.map((row) =>
    !isEntity(row) && (row as Row)[entry.property] == null ? { ...(row as Row), [entry.property]: keys[i++] } : row,
  );
}

/**
 * Waits until memory holds a key for every row of an upsert that has none, so that the `onCreate` hook
 * MikroORM runs inside `upsert()` finds one. The key is not put into the row here: a key in the data would
 * become the upsert's conflict target instead of the unique properties the caller means.
 */
async function keysInMemory(em: EntityManager, entityOrName: unknown, rows: unknown[] | undefined): Promise<void> {
  const runtime = runtimeFor(em);
  const list = rows ?? (Array.isArray(entityOrName) ? entityOrName : [entityOrName]);
  const entry = keyedEntry(em, runtime, rows ? entityOrName : (list[0] as object | undefined));
  if (!entry) return;
  const missing = list.filter(
    (row) => typeof row === 'object' && row !== null && (row as Row)[entry.property] == null,
  ).length;
  if (missing === 0) return;
  if (registersAfterInit()) {
    // MikroORM 6's upsert runs no onCreate hook, and a key put in the data becomes its conflict target
    throw configurationErrors.upsertOnMikroOrm6(entry.where, entry.className);
  }
  const generator = await runtime.ready();
  await generator.ensure(entry.segment, missing);
}

/**
 * The keys of the inserted rows as the entity holds them. MikroORM reports none for plain rows without
 * RETURNING, and database-form strings for bigint columns; the keys are ours, so report them as assigned.
 */
function keysOf(
  em: EntityManager,
  runtime: HiLoRuntime,
  entityOrName: unknown,
  rows: unknown[] | undefined,
): unknown[] | undefined {
  const list = rows ?? (Array.isArray(entityOrName) ? entityOrName : [entityOrName]);
  const first: unknown = list[0];
  const entry = keyedEntry(em, runtime, rows ? entityOrName : (first as object | undefined)?.constructor);
  if (!entry) return undefined;
  const keys = list.map((row) => (row as Row)[entry.property]);
  return keys.some((key) => key == null) ? undefined : keys;
}

function keyedEntry(em: EntityManager, runtime: HiLoRuntime, entityName: unknown): KeyedEntity | undefined {
  if (entityName == null) return undefined;
  if (typeof entityName === 'object' && isEntity(entityName)) return runtime.entryFor(entityName);
  const meta = em.getMetadata().find(entityName as EntityName<object>);
  return meta?.class ? runtime.entryFor(meta.class) : undefined;
}
