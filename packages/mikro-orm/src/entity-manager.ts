import { Utils, type EntityManager, type EntityName } from '@mikro-orm/core';
import { runtimeFor, type HiLoRuntime, type KeyedEntity } from './runtime.js';

type EntityManagerClass = new (...args: never[]) => EntityManager;
type Row = Record<string, unknown>;

const isEntity = (row: unknown): boolean => Utils.isEntity(row);

const classes = new WeakMap<EntityManagerClass, EntityManagerClass>();

/**
 * A subclass of the driver's EntityManager whose `insert()` and `insertMany()` fill missing hi/lo keys
 * first: those methods write rows directly and never run `onCreate`. Forks inherit the class.
 */
export function hiloEntityManagerClass(base: EntityManagerClass): EntityManagerClass {
  const cached = classes.get(base);
  if (cached) return cached;
  const Base = base as unknown as new (...args: unknown[]) => EntityManager;

  class HiLoEntityManager extends Base {
    override async insert(entityNameOrEntity: unknown, data?: unknown, options?: unknown): Promise<never> {
      const runtime = runtimeFor(this);
      if (data === undefined) {
        await runtime.fillMissing([entityNameOrEntity as object]);
      } else {
        [data] = await withKeys(this, runtime, entityNameOrEntity, [data]);
      }
      return (super.insert as (...args: unknown[]) => Promise<never>)(entityNameOrEntity, data, options);
    }

    override async insertMany(entitiesOrName: unknown, data?: unknown, options?: unknown): Promise<never> {
      const runtime = runtimeFor(this);
      if (data === undefined) {
        await runtime.fillMissing(entitiesOrName as object[]);
      } else if (Array.isArray(data)) {
        data = await withKeys(this, runtime, entitiesOrName, data);
      }
      const result = await (super.insertMany as (...args: unknown[]) => Promise<unknown[]>)(entitiesOrName, data, options);
      // Without RETURNING the driver knows no ids for plain rows; the keys are ours, so report them.
      const entry = keyedEntry(this, runtime, data === undefined ? (entitiesOrName as object[])[0]?.constructor : entitiesOrName);
      if (entry && Array.isArray(data) && result.some((id) => id == null)) {
        return data.map((row) => (row as Row)[entry.property]) as never;
      }
      return result as never;
    }
  }

  Object.defineProperty(HiLoEntityManager, 'name', { value: `HiLo${base.name}` });
  classes.set(base, HiLoEntityManager as unknown as EntityManagerClass);
  return HiLoEntityManager as unknown as EntityManagerClass;
}

/** Rows with a key wherever the entity has a hi/lo key and the row has none; rows are copied, not mutated. */
async function withKeys(em: EntityManager, runtime: HiLoRuntime, entityName: unknown, rows: unknown[]): Promise<unknown[]> {
  const entities = rows.filter((row) => isEntity(row)) as object[];
  await runtime.fillMissing(entities);
  const entry = keyedEntry(em, runtime, entityName);
  if (!entry) return rows;
  const missing = rows.filter((row) => !isEntity(row) && (row as Row)[entry.property] == null);
  if (missing.length === 0) return rows;
  const keys = await runtime.keys(entry, missing.length);
  let i = 0;
  return rows.map((row) =>
    !isEntity(row) && (row as Row)[entry.property] == null ? { ...(row as Row), [entry.property]: keys[i++] } : row,
  );
}

function keyedEntry(em: EntityManager, runtime: HiLoRuntime, entityName: unknown): KeyedEntity | undefined {
  if (entityName == null) return undefined;
  const meta = em.getMetadata().find(entityName as EntityName);
  return meta?.class ? runtime.entryFor(meta.class) : undefined;
}
