/**
 * TypeORM's `save()` builds the list of entities to persist by following cascades; for every related object
 * it asks whether that object is already in the list (`CascadesSubjectBuilder.findByPersistEntityLike`), by
 * reference or by primary key. It answers with a linear scan that compares key maps, so saving n new
 * entities whose keys are already set costs O(n²) key comparisons: 11,000 rows take tens of seconds. With
 * database-generated keys the comparison stops early (no key yet), which is why TypeORM's identity path does
 * not show it. Keys known before save — hilo's whole point, and any pre-assigned key — hit it every time.
 *
 * This module gives that lookup an index with the same answer: the first subject in list order that holds
 * the same object, or has the same target and an equal single-column key. Where a key is not a plain string,
 * number or bigint, where a target mixes key types or metadata, or where TypeORM's builder is not shaped as
 * expected, the lookup falls back to TypeORM's own scan.
 */

/** The fields of TypeORM's private `Subject` the lookup reads. */
interface CascadeSubject {
  entity?: object;
  entityWithFulfilledIds?: object;
  metadata: CascadeMetadata;
}

interface CascadeMetadata {
  target: unknown;
  getEntityIdMap(entity: object | undefined): Record<string, unknown> | undefined;
}

interface Builder {
  allSubjects: unknown;
}

type Find = (this: Builder, entityTarget: unknown, entity: object) => CascadeSubject | undefined;

interface TargetIndex {
  metadata: CascadeMetadata;
  /** The key property and the key's type shared by every indexed subject of the target. */
  property?: string;
  type?: 'string' | 'number' | 'bigint';
  /** A subject of this target whose key the index cannot represent: answer by scanning. */
  irregular: boolean;
  /** Key value → position of the first subject holding it. */
  first: Map<string | number | bigint, number>;
}

interface Index {
  subjects: CascadeSubject[];
  scanned: number;
  byEntity: Map<object, number>;
  byTarget: Map<unknown, TargetIndex>;
}

/** The single plain key of an id map, or `undefined` when it has none or another shape. */
function plainKey(idMap: Record<string, unknown> | undefined): { property: string; value: string | number | bigint } | undefined {
  if (!idMap) return undefined;
  const properties = Object.keys(idMap);
  if (properties.length !== 1) return undefined;
  const value = idMap[properties[0]!];
  // Equal plain keys of one type are exactly the ones TypeORM's comparison calls equal; a Map finds them.
  if (typeof value === 'string' || typeof value === 'bigint' || (typeof value === 'number' && !Number.isNaN(value))) {
    return { property: properties[0]!, value };
  }
  return undefined;
}

function isSubject(value: unknown): value is CascadeSubject {
  if (typeof value !== 'object' || value === null) return false;
  const metadata = (value as { metadata?: Partial<CascadeMetadata> }).metadata;
  return typeof metadata === 'object' && metadata !== null && typeof metadata.getEntityIdMap === 'function';
}

const indexes = new WeakMap<object, Index>();

/** Brings the builder's index up to date with subjects appended since the last lookup. */
function indexOf(builder: Builder): Index | undefined {
  const subjects = builder.allSubjects;
  if (!Array.isArray(subjects)) return undefined;
  let index = indexes.get(builder);
  if (!index || index.subjects !== subjects || index.scanned > subjects.length) {
    index = { subjects: subjects as CascadeSubject[], scanned: 0, byEntity: new Map(), byTarget: new Map() };
    indexes.set(builder, index);
  }
  for (; index.scanned < subjects.length; index.scanned++) {
    const position = index.scanned;
    const subject: unknown = subjects[position];
    if (!isSubject(subject)) return undefined;
    if (!subject.entity) continue;
    if (!index.byEntity.has(subject.entity)) index.byEntity.set(subject.entity, position);
    const target = subject.metadata.target;
    let byKey = index.byTarget.get(target);
    if (!byKey) {
      byKey = { metadata: subject.metadata, irregular: false, first: new Map() };
      index.byTarget.set(target, byKey);
    }
    if (byKey.irregular) continue;
    if (byKey.metadata !== subject.metadata) {
      byKey.irregular = true;
      continue;
    }
    const idMap = subject.metadata.getEntityIdMap(subject.entityWithFulfilledIds);
    if (idMap === undefined) continue; // no key: TypeORM's comparison is false for it
    const key = plainKey(idMap);
    if (!key || (byKey.property ?? key.property) !== key.property || (byKey.type ?? typeof key.value) !== typeof key.value) {
      byKey.irregular = true;
      continue;
    }
    byKey.property = key.property;
    byKey.type = typeof key.value as 'string' | 'number' | 'bigint';
    if (!byKey.first.has(key.value)) byKey.first.set(key.value, position);
  }
  return index;
}

const patched = new WeakSet<object>();

/**
 * Replaces `findByPersistEntityLike` on TypeORM's `CascadesSubjectBuilder.prototype` by an indexed lookup
 * with the same answer.
 * @returns `undefined` when the lookup is in place, else why it is not (TypeORM then keeps its own scan)
 */
export function patchCascadeLookup(prototype: unknown): string | undefined {
  if (typeof prototype !== 'object' || prototype === null) return 'TypeORM has no CascadesSubjectBuilder class where hilo expects it';
  if (patched.has(prototype)) return undefined;
  const target = prototype as { findByPersistEntityLike?: unknown };
  if (typeof target.findByPersistEntityLike !== 'function' || target.findByPersistEntityLike.length !== 2) {
    return "TypeORM's CascadesSubjectBuilder has no findByPersistEntityLike(target, entity) method";
  }
  const scan = target.findByPersistEntityLike as Find;
  const indexed: Find = function (entityTarget, entity) {
    const index = indexOf(this);
    if (!index) return scan.call(this, entityTarget, entity);
    const byKey = index.byTarget.get(entityTarget);
    if (byKey?.irregular) return scan.call(this, entityTarget, entity);
    let position = index.byEntity.get(entity);
    if (byKey) {
      const idMap = byKey.metadata.getEntityIdMap(entity);
      if (idMap !== undefined) {
        const key = plainKey(idMap);
        if (!key || key.property !== byKey.property || typeof key.value !== byKey.type) {
          // Shapes the index does not hold (or a target with no keyed subject yet): TypeORM decides.
          if (byKey.first.size > 0) return scan.call(this, entityTarget, entity);
        } else {
          const found = byKey.first.get(key.value);
          if (found !== undefined && (position === undefined || found < position)) position = found;
        }
      }
    }
    return position === undefined ? undefined : index.subjects[position];
  };
  target.findByPersistEntityLike = indexed;
  patched.add(prototype);
  return undefined;
}

let installed: Promise<boolean> | undefined;

/** Installs the indexed cascade lookup once per process; resolves whether it is in place. */
export function indexCascadeLookup(): Promise<boolean> {
  installed ??= import('typeorm/persistence/subject-builder/CascadesSubjectBuilder.js').then(
    (module: { CascadesSubjectBuilder?: { prototype?: unknown } }) => patchCascadeLookup(module.CascadesSubjectBuilder?.prototype) === undefined,
    () => false,
  );
  return installed;
}
