/**
 * Every use hilo-typeorm makes of TypeORM's private classes, in one file. Four methods (1, 2, 3 and 5) are
 * wrapped on prototypes shared by every DataSource of the process, so each wrapper first asks whether the work
 * belongs to a DataSource hilo is installed on ({@link enableInternals}; 5: whether the column is a key column
 * of one); any other DataSource runs TypeORM's own method, untouched. The fourth is replaced on the installed
 * DataSource's own metadata objects only.
 * Nothing is replaced unless the loaded TypeORM is a release this file knows ({@link internalsRefusal}); each
 * wrapper also checks the shape of what it wraps first and, where it differs, leaves TypeORM's method in place
 * and says why.
 *
 * 1. `CascadesSubjectBuilder.findByPersistEntityLike`: an indexed lookup with the same answers (below).
 * 2. `OneToManySubjectBuilder.buildForSubjectRelation`: the same index narrows its subject lookups.
 * 3. `SubjectDatabaseEntityLoader.load`: `save()` of an entity whose key hilo assigned skips the SELECT by key.
 * 4. `EntityMetadata.getEntityIdMap` (a public method, replaced on the DataSource's metadata objects): the id
 *    map of an entity with one plain key column, built directly instead of through TypeORM's deep merge.
 * 5. `InsertQueryBuilder.createColumnValueExpression`: an integer hi/lo key goes into the INSERT as a literal,
 *    not as one more bound parameter per row.
 *
 * And one use of how TypeORM builds a query, not of a private class: `upsert()` builds its INSERT through the
 * manager's query builder, whose public `orUpdate()` hilo adjusts for that one call ({@link upsertKeepingKey}),
 * on a known release only and only when TypeORM builds that query within the call; otherwise the upsert is
 * refused with a HiLoConfigurationError rather than left to overwrite a stored key.
 *
 * Graph loads ({@link graphTargetOf}) write on the connections TypeORM's drivers hold: the pg Pool (`master`), the
 * mysql/mysql2 callback pool (`pool`), the better-sqlite3 Database (`databaseConnection`), and in a transaction
 * the connection its QueryRunner's public `connect()` gives; each is checked for the methods used.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DataSource, EntityManager, EntityMetadata, QueryRunner } from 'typeorm';
import {
  HiLoConfigurationError,
  mysqlGraphTarget,
  pgGraphTarget,
  sqliteGraphTarget,
  type GraphTarget,
  type MysqlQueryableLike,
  type PgGraphConnectionLike,
  type PgGraphPoolLike,
  type SqliteDatabaseLike,
} from 'hilo-core';
import { objectMark } from 'hilo-core/adapter-kit';
import { configurationErrors } from './error-messages.js';

/** The DataSources hilo is installed on: the only ones whose saves run hilo's wrappers. */
const scope = new WeakSet<object>();

/** Lets saves of `dataSource` use hilo's wrappers of TypeORM's internals. */
export function enableInternals(dataSource: DataSource): void {
  scope.add(dataSource);
}

/** After hilo is closed on `dataSource`, its saves run TypeORM's own methods again. */
export function disableInternals(dataSource: DataSource): void {
  scope.delete(dataSource);
  removeDirectIdMaps(dataSource.entityMetadatas);
  for (const metadata of dataSource.entityMetadatas) for (const column of metadata.columns) literalKeys.delete(column);
}

/**
 * The DataSource of an entity's metadata or an EntityManager: TypeORM 1.x calls it `dataSource` (keeping
 * `connection` as a deprecated getter), 0.3 only `connection`, and the peer range covers both.
 */
export function dataSourceOf(owner: unknown): DataSource | undefined {
  const m = owner as { dataSource?: DataSource; connection?: DataSource } | undefined;
  return m?.dataSource ?? m?.connection;
}

/** The methods replaced so far, per prototype: a second installation wraps nothing twice. */
const replaced = new WeakMap<object, Set<string>>();

/**
 * Replaces the method `signature` names (`load(operation)`) by `wrap(original)`, once, when TypeORM's method
 * takes as many arguments as the signature lists.
 * @param className - TypeORM's class, for the reason.
 * @returns `undefined` when the replacement is in place, else why it is not (TypeORM keeps its method)
 */
function replaceMethod<F>(
  prototype: unknown,
  className: string,
  signature: string,
  wrap: (original: F) => F,
): string | undefined {
  if (typeof prototype !== 'object' || prototype === null)
    return `TypeORM has no ${className} class where hilo expects it`;
  const open = signature.indexOf('(');
  const method = signature.slice(0, open);
  const arity = signature
    .slice(open + 1, -1)
    .split(',')
    .filter((name) => name.trim() !== '').length;
  const done = replaced.get(prototype) ?? new Set<string>();
  if (done.has(method)) return undefined;
  const target = prototype as Record<string, unknown>;
  const original = target[method];
  if (typeof original !== 'function' || original.length !== arity)
    return `TypeORM's ${className} has no ${signature} method`;
  target[method] = wrap(original as F);
  replaced.set(prototype, done.add(method));
  return undefined;
}

/** The TypeORM releases whose private classes this file was written for and is tested with (the peer range). */
const KNOWN_RELEASES = '0.3.x and 1.x';

/**
 * Why hilo must leave the private classes of TypeORM `version` alone, or `undefined` when they are the ones
 * this file knows: every 0.3 release and 1.x. Prereleases count as their release.
 */
export function internalsRefusal(version: string | undefined): string | undefined {
  if (version === undefined)
    return `hilo-typeorm cannot read the version of the TypeORM this process loads (its package.json)`;
  const [major, minor] = (/^(\d+)\.(\d+)\.\d+/.exec(version) ?? []).slice(1).map(Number);
  const known = major === 1 || (major === 0 && minor === 3);
  return known
    ? undefined
    : `TypeORM ${version} is not a release whose internals hilo-typeorm knows (${KNOWN_RELEASES})`;
}

/**
 * The version of the TypeORM this process loads, or `undefined` when it cannot be read (a bundle without
 * TypeORM's package.json, say). The CommonJS build resolves `typeorm` as its own `require` does; the ESM
 * build imports TypeORM's package.json through the same resolution, and the same mappings, as TypeORM's
 * modules.
 */
export async function loadedTypeOrmVersion(): Promise<string | undefined> {
  try {
    if (typeof require === 'function') {
      const manifest = JSON.parse(readFileSync(join(dirname(require.resolve('typeorm')), 'package.json'), 'utf8')) as {
        version?: unknown;
      };
      return typeof manifest.version === 'string' ? manifest.version : undefined;
    }
    // @ts-ignore the CommonJS build never runs this line (it has `require`), and its compiler refuses the attribute
    const manifest = (await import('typeorm/package.json', { with: { type: 'json' } })) as {
      default: { version?: unknown };
    };
    return typeof manifest.default.version === 'string' ? manifest.default.version : undefined;
  } catch {
    return undefined;
  }
}

let versionRefusal: Promise<string | undefined> | undefined;

/** Why hilo leaves the loaded TypeORM's internals alone ({@link internalsRefusal}), read once per process. */
const releaseRefusal = (): Promise<string | undefined> =>
  (versionRefusal ??= loadedTypeOrmVersion().then(internalsRefusal));

/** Loads one of TypeORM's modules and replaces a method of `className` with `patch`; resolves the reason when it cannot. */
async function patchModule(
  load: () => Promise<unknown>,
  className: string,
  patch: (prototype: unknown) => string | undefined,
): Promise<string | undefined> {
  const refused = await releaseRefusal();
  if (refused !== undefined) return refused;
  const module = await load().catch(() => undefined);
  if (module === undefined) return `TypeORM's ${className} module cannot be loaded`;
  return patch((module as Record<string, { prototype?: unknown } | undefined>)[className]?.prototype);
}

// ——— 1. The cascade lookup ———

/*
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
  primaryColumns: ReadonlyArray<{ propertyName: string }>;
}

type Find = (this: { allSubjects: unknown }, entityTarget: unknown, entity: object) => CascadeSubject | undefined;

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

type PlainValue = string | number | bigint;

/** Equal plain keys of one type are exactly the ones TypeORM's comparison calls equal; a Map finds them. */
const isPlain = (value: unknown): value is PlainValue =>
  typeof value === 'string' || typeof value === 'bigint' || (typeof value === 'number' && !Number.isNaN(value));

/** What {@link keyOf} found: one object, refilled by every call and read by its caller at once. */
const found: { property: string; value: PlainValue } = { property: '', value: 0 };

/**
 * The id map TypeORM compares of `entity` under `metadata`, as the index holds it: `undefined` when there is
 * none (TypeORM's comparison is false for it), `null` for a key that is not one plain value, else `found`
 * with its single property and value. Where hilo builds the id map itself (section 4), the key is read
 * from the entity without building the map: two allocations per subject fewer, on every lookup of a save.
 */
function keyOf(metadata: CascadeMetadata, entity: object | undefined): typeof found | null | undefined {
  const property =
    directMaps.get(metadata) === metadata.getEntityIdMap ? metadata.primaryColumns[0]!.propertyName : undefined;
  let value =
    property !== undefined && typeof entity === 'object' ? (entity as Record<string, unknown>)[property] : null;
  found.property = property!;
  if (!isPlain(value)) {
    const idMap = value === undefined ? undefined : metadata.getEntityIdMap(entity);
    if (idMap === undefined) return undefined;
    const properties = Object.keys(idMap);
    found.property = properties[0]!;
    value = idMap[properties[0]!];
    if (properties.length !== 1 || !isPlain(value)) return null;
  }
  found.value = value;
  return found;
}

function isSubject(value: unknown): value is CascadeSubject {
  if (typeof value !== 'object' || value === null) return false;
  const metadata = (value as { metadata?: Partial<CascadeMetadata> }).metadata;
  return typeof metadata === 'object' && metadata !== null && typeof metadata.getEntityIdMap === 'function';
}

/** Per list of subjects (one per `save()`: the cascade and one-to-many builders share it), its index. */
const indexes = new WeakMap<object, Index>();

/** Brings the index of a list of subjects up to date with subjects appended since the last lookup. */
function indexOf(subjects: unknown): Index | undefined {
  if (!Array.isArray(subjects)) return undefined;
  let index = indexes.get(subjects);
  if (!index || index.scanned > subjects.length) {
    index = { subjects: subjects as CascadeSubject[], scanned: 0, byEntity: new Map(), byTarget: new Map() };
    indexes.set(subjects, index);
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
    const key = keyOf(subject.metadata, subject.entityWithFulfilledIds);
    if (key === undefined) continue; // no key: TypeORM's comparison is false for it
    if (
      !key ||
      (byKey.property ?? key.property) !== key.property ||
      (byKey.type ?? typeof key.value) !== typeof key.value
    ) {
      byKey.irregular = true;
      continue;
    }
    byKey.property = key.property;
    byKey.type = typeof key.value as 'string' | 'number' | 'bigint';
    if (!byKey.first.has(key.value)) byKey.first.set(key.value, position);
  }
  return index;
}

/**
 * Replaces `findByPersistEntityLike` on TypeORM's `CascadesSubjectBuilder.prototype` by an indexed lookup
 * with the same answer.
 * @returns `undefined` when the lookup is in place, else why it is not (TypeORM then keeps its own scan)
 */
export function patchCascadeLookup(prototype: unknown): string | undefined {
  return replaceMethod<Find>(
    prototype,
    'CascadesSubjectBuilder',
    'findByPersistEntityLike(target, entity)',
    (scan) =>
      function indexed(entityTarget, entity) {
        const subjects = this.allSubjects;
        const first: unknown = Array.isArray(subjects) ? subjects[0] : undefined;
        const owner = isSubject(first) ? dataSourceOf(first.metadata) : undefined;
        if (owner === undefined || !scope.has(owner)) return scan.call(this, entityTarget, entity);
        const index = indexOf(this.allSubjects);
        if (!index) return scan.call(this, entityTarget, entity);
        const byKey = index.byTarget.get(entityTarget);
        if (byKey?.irregular) return scan.call(this, entityTarget, entity);
        let position = index.byEntity.get(entity);
        if (byKey) {
          const key = keyOf(byKey.metadata, entity);
          if (key !== undefined) {
            if (!key || key.property !== byKey.property || typeof key.value !== byKey.type) {
              // Shapes the index does not hold (or a target with no keyed subject yet): TypeORM decides.
              if (byKey.first.size > 0) return scan.call(this, entityTarget, entity);
            } else {
              const first = byKey.first.get(key.value);
              if (first !== undefined && (position === undefined || first < position)) position = first;
            }
          }
        }
        return position === undefined ? undefined : index.subjects[position];
      },
  );
}

// ——— 2. One-to-many matching by index ———

/*
 * After cascades, TypeORM's `OneToManySubjectBuilder` looks up, for every entity in every one-to-many array of
 * the save, the first subject holding that object (`this.subjects.find((s) => s.entity === related)`): a
 * linear scan per entity, quadratic in the save (about a third of a 1,000 orders × 10 items save, identity
 * keys or not). `buildForSubjectRelation` reads `this.subjects` for that lookup and appends new subjects to it,
 * nothing else. hilo runs it with `this.subjects` narrowed to the first subject of each related object (one
 * per object, so the scan finds the same subject in any order); what it appends goes to the full list, in the
 * same order. When a related value is not an array of objects (null, a lazy relation, an `undefined` in the
 * array, which would match subjects without an entity), TypeORM's method runs as it is.
 */

type BuildForRelation = (
  this: { subjects: unknown },
  subject: unknown,
  relation: { getEntityValue(entity: unknown): unknown },
) => void;

/**
 * Replaces `buildForSubjectRelation` on TypeORM's `OneToManySubjectBuilder.prototype` by one that gives its
 * subject lookups only the candidates, with the same answers.
 * @returns `undefined` when it is in place, else why it is not (TypeORM then keeps its own method)
 */
export function patchOneToManyLookup(prototype: unknown): string | undefined {
  return replaceMethod<BuildForRelation>(
    prototype,
    'OneToManySubjectBuilder',
    'buildForSubjectRelation(subject, relation)',
    (build) =>
      function narrowed(subject, relation) {
        const all = this.subjects;
        const owner = isSubject(subject) ? dataSourceOf(subject.metadata) : undefined;
        const related =
          owner !== undefined && scope.has(owner)
            ? relation.getEntityValue((subject as CascadeSubject).entity)
            : undefined;
        const index =
          Array.isArray(related) && related.every((entity) => typeof entity === 'object' && entity !== null)
            ? indexOf(all)
            : undefined;
        if (!index || !Array.isArray(all)) return build.call(this, subject, relation);
        const positions = [...new Set((related as object[]).map((entity) => index.byEntity.get(entity)))].filter(
          (p) => p !== undefined,
        );
        const candidates: unknown[] = positions.map((position): unknown => all[position]);
        this.subjects = candidates;
        try {
          build.call(this, subject, relation);
        } finally {
          this.subjects = all;
          all.push(...candidates.slice(positions.length));
        }
      },
  );
}

let prototypes: Promise<Array<string | undefined>> | undefined;

/**
 * Replaces, once per process, the methods of TypeORM's shared prototypes that hilo wraps (the cascade and
 * one-to-many lookups, the key literals), each where TypeORM is shaped as hilo expects; resolves why one is
 * not, for each, in that order.
 */
function patchPrototypes(): Promise<Array<string | undefined>> {
  prototypes ??= Promise.all([
    patchModule(
      () => import('typeorm/persistence/subject-builder/CascadesSubjectBuilder.js'),
      'CascadesSubjectBuilder',
      patchCascadeLookup,
    ),
    patchModule(
      () => import('typeorm/persistence/subject-builder/OneToManySubjectBuilder.js'),
      'OneToManySubjectBuilder',
      patchOneToManyLookup,
    ),
    patchModule(() => import('typeorm/query-builder/InsertQueryBuilder.js'), 'InsertQueryBuilder', patchKeyLiterals),
  ]);
  return prototypes;
}

/**
 * Puts every use of TypeORM's internals in place for `dataSource`, whose hi/lo key columns are `keyColumns`:
 * the indexed lookups (keys set before save() make TypeORM's cascade lookup quadratic, and its one-to-many
 * matching is quadratic for any save), the direct id maps, the key literals and, with `saveWithoutSelect`,
 * the save() shortcut. Each keeps TypeORM's own method where TypeORM is not shaped as expected. Saves of
 * `dataSource` use them once {@link enableInternals} has run.
 * @returns whether the save() shortcut is in place
 */
export async function prepareInternals(
  dataSource: DataSource,
  keyColumns: readonly object[],
  saveWithoutSelect: boolean,
): Promise<boolean> {
  const shortcut = saveWithoutSelect && (await freshEntityShortcut());
  const [, , literals] = await patchPrototypes();
  if ((await releaseRefusal()) === undefined) installDirectIdMaps(dataSource.entityMetadatas);
  if (literals === undefined && LITERAL_KEY_DRIVERS.has(dataSource.options.type))
    for (const column of keyColumns) literalKeys.add(column);
  return shortcut;
}

// ——— 3. save() without the SELECT by key ———

/**
 * Entities whose key hilo assigned and which no INSERT has been attempted for. hilo reserved that key in
 * the database for this process alone, so no row can carry it yet: saving such an entity must insert, and
 * the SELECT TypeORM issues to tell insert from update is unnecessary.
 *
 * The mark is hilo-core's {@link objectMark}: a private field of the entity that nothing else sees, so a copy
 * of an entity is never marked. A WeakMap did the same at ten times the cost: 10 ms of an 11,000-entity save,
 * a third of hilo's gap to TypeORM's identity path (issue #18).
 */
const fresh = objectMark<{ readonly metadata: EntityMetadata; readonly key: unknown }>();

/** Whether `entity` still holds the key hilo gave it under `metadata`, unsaved; the mark is consumed. */
function takeFresh(metadata: EntityMetadata, entity: object): boolean {
  const mark = fresh.get(entity);
  if (mark?.metadata !== metadata || metadata.primaryColumns.length !== 1) return false;
  fresh.set(entity, undefined);
  // The application may have overwritten the key with one of its own: then TypeORM must check the table.
  return metadata.primaryColumns[0]!.getEntityValue(entity) === mark.key;
}

/** Remembers that hilo gave `entity` its `key` under `metadata`. */
export function markFresh(metadata: EntityMetadata, entity: object, key: unknown): void {
  fresh.set(entity, { metadata, key });
}

/** Forgets the mark (an INSERT of the entity is under way). */
export function forgetFresh(entity: object): void {
  fresh.set(entity, undefined);
}

/** The fields of TypeORM's (private) `Subject` the shortcut reads and writes. */
interface LoaderSubject {
  metadata: EntityMetadata;
  entity?: object;
  databaseEntity?: object;
  canBeInserted: boolean;
  identifier: unknown;
}

/** What the shortcut expects of TypeORM's private `SubjectDatabaseEntityLoader`. */
interface LoaderThis {
  /** `dataSource` in TypeORM 1.x, `connection` in 0.3. */
  queryRunner?: { dataSource?: DataSource; connection?: DataSource };
  subjects?: unknown;
}

type Load = (this: LoaderThis, operation: string) => Promise<void>;

function isLoaderSubject(subject: unknown): subject is LoaderSubject {
  if (typeof subject !== 'object' || subject === null) return false;
  const s = subject as Partial<LoaderSubject>;
  return typeof s.canBeInserted === 'boolean' && 'identifier' in s && Array.isArray(s.metadata?.primaryColumns);
}

const WARNING_CODE = 'HILO_TYPEORM_SAVE_SELECT';
let warned = false;

/** Warns once per process that `save()` falls back to TypeORM's SELECT before INSERT. */
function warnFallback(reason: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `hilo-typeorm: ${reason}. save() of new hilo entities falls back to TypeORM's usual path (a ` +
      `SELECT by key, then INSERT): keys stay correct, saving is one statement per table slower. Please ` +
      `report your TypeORM version.`,
    { code: WARNING_CODE },
  );
}

/**
 * Makes `save()` treat hilo's fresh entities like TypeORM's own new entities: before loading database
 * entities, their subjects lose the identifier, which is exactly the state of a new entity whose key the
 * database would generate. TypeORM then skips the SELECT, plans an INSERT, resolves relations to them
 * through the subject (as for identity keys) and sets the identifier from the INSERT's value set. The mark
 * is consumed here, so a second `save()` of the same object takes TypeORM's usual path.
 *
 * `SubjectDatabaseEntityLoader` is private to TypeORM. When `prototype` is not shaped as expected nothing
 * is patched and the reason is returned; when a call brings subjects of another shape, that call runs
 * TypeORM's method untouched. Either way one process warning (code `HILO_TYPEORM_SAVE_SELECT`) says so.
 * @returns `undefined` when the shortcut is in place, else why it is not
 */
export function patchSubjectLoader(prototype: unknown): string | undefined {
  return replaceMethod<Load>(
    prototype,
    'SubjectDatabaseEntityLoader',
    'load(operation)',
    (load) =>
      function shortcut(operation) {
        if (operation !== 'save') return load.call(this, operation);
        const dataSource = this.queryRunner?.dataSource ?? this.queryRunner?.connection;
        if (!dataSource || !scope.has(dataSource)) return load.call(this, operation);
        const subjects = this.subjects;
        if (!dataSource || !Array.isArray(subjects) || !subjects.every(isLoaderSubject)) {
          warnFallback("TypeORM's persistence subjects are not shaped as hilo expects");
          return load.call(this, operation);
        }
        for (const subject of subjects) {
          if (
            subject.canBeInserted &&
            subject.entity &&
            !subject.databaseEntity &&
            subject.identifier !== undefined &&
            takeFresh(subject.metadata, subject.entity)
          ) {
            subject.identifier = undefined;
          }
        }
        return load.call(this, operation);
      },
  );
}

let shortcut: Promise<boolean> | undefined;

/**
 * Installs the `save()` shortcut on TypeORM's loader once per process. Resolves `false` (after one
 * warning) when TypeORM's internals are not what hilo expects, so that callers leave entities unmarked and
 * TypeORM keeps its own SELECT-then-INSERT.
 */
function freshEntityShortcut(): Promise<boolean> {
  shortcut ??= patchModule(
    () => import('typeorm/persistence/SubjectDatabaseEntityLoader.js'),
    'SubjectDatabaseEntityLoader',
    patchSubjectLoader,
  ).then((reason) => {
    if (reason !== undefined) warnFallback(reason);
    return reason === undefined;
  });
  return shortcut;
}

// ——— 4. Id maps without the deep merge ———

/*
 * TypeORM asks for the id map of every entity of a save several times (subjects, cascades, one-to-many
 * relations). With a key set, its answer goes through a generic deep merge (`OrmUtils.mergeDeep`): about
 * 13 ms of a 2,200-entity save, where an entity without a key (an identity key, before INSERT) returns at
 * once. For one primary column that is neither embedded nor a relation, and a key that is a number, bigint
 * or string, that merge copies exactly one property: `{ [property]: key }`, which is built here directly. A
 * missing key (`undefined`) gives `undefined` in every TypeORM of the peer range; anything else (null, a
 * Date, a Buffer, composite, embedded or relation keys) goes to TypeORM's own method.
 *
 * The direct method is an own property of each EntityMetadata of a DataSource hilo is installed on (TypeORM
 * calls `metadata.getEntityIdMap(entity)`), so other DataSources of the process keep TypeORM's method with
 * no check in front of it, and closing hilo deletes the property.
 */

type GetEntityIdMap = (this: unknown, entity: unknown) => Record<string, unknown> | undefined;

/** The direct id-map methods installed, per metadata: removed again only where they are still in place. */
const directMaps = new WeakMap<object, GetEntityIdMap>();

/**
 * Gives each metadata with one plain primary column a direct `getEntityIdMap` of its own.
 * @returns `undefined` when they are in place, else why not (every metadata then keeps TypeORM's method)
 */
export function installDirectIdMaps(metadatas: readonly EntityMetadata[]): string | undefined {
  const planned: Array<[EntityMetadata, GetEntityIdMap]> = [];
  for (const metadata of metadatas) {
    const general = (Object.getPrototypeOf(metadata) as { getEntityIdMap?: GetEntityIdMap } | null)?.getEntityIdMap;
    if (typeof general !== 'function' || general.length !== 1)
      return "TypeORM's EntityMetadata has no getEntityIdMap(entity) method";
    const columns: unknown = metadata.primaryColumns;
    if (!Array.isArray(columns) || columns.length !== 1) continue;
    const {
      propertyName: property,
      embeddedMetadata,
      relationMetadata,
    } = columns[0] as { propertyName: string; embeddedMetadata?: unknown; relationMetadata?: unknown };
    if (embeddedMetadata || relationMetadata || property === '__proto__' || Object.hasOwn(metadata, 'getEntityIdMap'))
      continue;
    planned.push([
      metadata,
      function direct(entity) {
        const key: unknown =
          typeof entity === 'object' && entity !== null ? (entity as Record<string, unknown>)[property] : null;
        if (key === undefined) return undefined;
        if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'string') return { [property]: key };
        return general.call(this, entity);
      },
    ]);
  }
  for (const [metadata, direct] of planned) {
    Object.defineProperty(metadata, 'getEntityIdMap', { value: direct, writable: true, configurable: true });
    directMaps.set(metadata, direct);
  }
  return undefined;
}

/** Gives the metadatas TypeORM's own `getEntityIdMap` back. */
export function removeDirectIdMaps(metadatas: readonly EntityMetadata[]): void {
  for (const metadata of metadatas) {
    const own = metadata as unknown as { getEntityIdMap?: unknown };
    if (Object.hasOwn(own, 'getEntityIdMap') && own.getEntityIdMap === directMaps.get(metadata))
      delete own.getEntityIdMap;
    directMaps.delete(metadata);
  }
}

/** What {@link upsertKeepingKey} needs of an InsertQueryBuilder: the two public methods it adjusts. */
interface UpsertQueryBuilder {
  orUpdate(overwrite: unknown, conflictTarget?: unknown, options?: unknown): UpsertQueryBuilder;
  returning(columns: string | string[]): UpsertQueryBuilder;
}

type CreateQueryBuilder = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Why hilo cannot adjust the query `upsert()` builds on `manager`, or `undefined` when it can: `createQueryBuilder`
 * must be the EntityManager prototype's method, which hilo shadows on the manager for one call and then deletes.
 * An own property there (another shadow, or one of hilo's still waiting for a query TypeORM did not build in time)
 * would be lost or misused.
 */
export function upsertShapeRefusal(manager: object): string | undefined {
  const method = (manager as { createQueryBuilder?: unknown }).createQueryBuilder;
  if (typeof method !== 'function') return "TypeORM's EntityManager has no createQueryBuilder() method";
  if (Object.hasOwn(manager, 'createQueryBuilder'))
    return "the EntityManager's createQueryBuilder() is replaced on the manager object itself";
  return undefined;
}

/**
 * Runs `upsert()` (TypeORM's `EntityManager.upsert`, bound to `manager`) so that a conflict never rewrites the
 * hi/lo key `keyColumn` of the existing row: TypeORM puts every column the entities carry into the `DO UPDATE`
 * / `ON DUPLICATE KEY UPDATE` list, and a key from `create()` would replace the stored one (moving the row
 * from under its foreign keys). With `returnKeys`, the INSERT also returns the key, so that the caller can
 * report the key the row really has. TypeORM's `upsert()` builds its query synchronously through
 * `manager.createQueryBuilder().insert()…orUpdate(…)` in every release of the range; the adjustment lives on
 * that one query builder, for that one call.
 *
 * Guarded, since a TypeORM that built the query later would overwrite stored keys unseen: only on a release
 * this file knows; the shadow of `createQueryBuilder` must be called exactly once, and `orUpdate()` reached,
 * within `upsert()`'s synchronous part. Otherwise the shadow stays as a tripwire that refuses to build the
 * query until `upsert()` settles, and the call fails with a HiLoConfigurationError; a builder without
 * `insert()` or `orUpdate()` is refused the same way.
 */
export async function upsertKeepingKey<T>(
  manager: object,
  keyColumn: string,
  returnKeys: boolean,
  upsert: () => Promise<T>,
): Promise<T> {
  const refused = (await releaseRefusal()) ?? upsertShapeRefusal(manager);
  if (refused !== undefined) throw configurationErrors.upsertRefused(refused);
  const target = manager as { createQueryBuilder: CreateQueryBuilder };
  const createQueryBuilder = target.createQueryBuilder;
  let synchronous = true;
  let built = 0;
  let adjusted = false;
  let refusal: HiLoConfigurationError | undefined;
  const refuse = (why: string) => (refusal = configurationErrors.upsertRefused(why));
  const shadow: CreateQueryBuilder = function (this: unknown, ...args: unknown[]) {
    if (!synchronous) {
      restore();
      throw refuse(
        'TypeORM did not build its query within the call to upsert(); hilo refused the late query, so nothing was written',
      );
    }
    built++;
    const builder = createQueryBuilder.apply(this, args) as { insert?: unknown };
    const insert = builder.insert;
    if (typeof insert !== 'function') throw refuse("TypeORM's query builder has no insert() method");
    builder.insert = function (this: unknown, ...insertArgs: unknown[]) {
      const inserting = insert.apply(this, insertArgs) as UpsertQueryBuilder;
      const orUpdate = inserting.orUpdate;
      if (typeof orUpdate !== 'function') throw refuse("TypeORM's insert query builder has no orUpdate() method");
      inserting.orUpdate = function (
        this: UpsertQueryBuilder,
        overwrite: unknown,
        conflictTarget?: unknown,
        options?: unknown,
      ) {
        adjusted = true;
        const kept = Array.isArray(overwrite) ? overwrite.filter((column) => column !== keyColumn) : overwrite;
        const result = orUpdate.call(this, kept, conflictTarget, options);
        return returnKeys ? result.returning([keyColumn]) : result;
      };
      return inserting;
    };
    return builder;
  };
  const restore = () => {
    if (Object.hasOwn(target, 'createQueryBuilder') && target.createQueryBuilder === shadow) {
      delete (target as { createQueryBuilder?: unknown }).createQueryBuilder;
    }
  };
  // shadowed for the synchronous part of this one call: nothing else runs on this thread until it returns
  target.createQueryBuilder = shadow;
  let running: Promise<T>;
  try {
    running = upsert();
  } catch (error) {
    restore();
    throw error;
  } finally {
    synchronous = false;
  }
  if (built === 1 && adjusted) {
    restore();
    return running;
  }
  // TypeORM did not build the query as every known release does: the tripwire refuses a late build
  const outcome = await running.then(
    () => ({ ran: true, error: undefined }),
    (error: unknown) => ({ ran: false, error }),
  );
  restore();
  if (refusal !== undefined) throw refusal;
  const why =
    built === 0
      ? 'TypeORM did not build its query within the call to upsert()'
      : `TypeORM's upsert() made ${built} query builders and ${adjusted ? '' : 'no '}orUpdate() call within the call, not 1 and 1`;
  const what = outcome.ran ? 'the upsert ran, and may have overwritten a stored key' : 'the upsert failed';
  throw configurationErrors.upsertRefused(
    `${why}; ${what}`,
    outcome.error === undefined ? undefined : { cause: outcome.error },
  );
}

// ——— 5. Keys as literals in INSERT ———

/*
 * TypeORM binds every value of an INSERT as a named parameter, and each one costs it work that grows with the
 * statement: the new name is checked against the parameters so far, the whole parameter object is copied for
 * the query, and each `:name` is rewritten to the driver's placeholder. A hi/lo key is one more parameter per
 * row than an identity key (which the INSERT leaves to the database), and that work made a 1,000 orders ×
 * 10 items save about 15 % slower than the same save with identity keys. A key that is a safe integer or a
 * bigint is written instead as a quoted integer literal (`'90001'`): PostgreSQL types it from the column, as it
 * types a bound parameter (an unquoted literal would be an int4 converted row by row); MariaDB/MySQL receive
 * bigint keys quoted from TypeORM already; SQLite's integer affinity stores it as an integer. Only the key
 * columns of DataSources hilo is installed on, and only on those databases; any other value (a string key, a
 * SQL function) goes through TypeORM's own method.
 */

/** The key columns whose integer values are written as literals (columns of installed DataSources only). */
const literalKeys = new WeakSet<object>();

/** The TypeORM drivers the literal is written for: the databases hilo-typeorm is tested on. */
const LITERAL_KEY_DRIVERS = new Set(['postgres', 'mysql', 'mariadb', 'better-sqlite3']);

type ColumnValueExpression = (
  this: unknown,
  valueSets: unknown[],
  valueSetIndex: number,
  column: { isPrimary?: unknown; getEntityValue(entity: unknown): unknown },
) => string;

/**
 * Replaces `createColumnValueExpression` on TypeORM's `InsertQueryBuilder.prototype` by one that writes an
 * integer key of {@link literalKeys} as a literal. TypeORM 0.3 releases before the method existed keep
 * binding keys as parameters.
 * @returns `undefined` when it is in place, else why it is not
 */
export function patchKeyLiterals(prototype: unknown): string | undefined {
  return replaceMethod<ColumnValueExpression>(
    prototype,
    'InsertQueryBuilder',
    'createColumnValueExpression(valueSets, valueSetIndex, column)',
    (expression) =>
      function literal(valueSets, valueSetIndex, column) {
        // every value of every row passes here: a plain property read rules out most columns before the set lookup
        const key =
          column.isPrimary === true && literalKeys.has(column)
            ? column.getEntityValue(valueSets[valueSetIndex])
            : undefined;
        if (typeof key === 'bigint' || (typeof key === 'number' && Number.isSafeInteger(key))) return `'${key}'`;
        return expression.call(this, valueSets, valueSetIndex, column);
      },
  );
}

/** A callback-style MySQL connection (mysql2's or the `mysql` package's, which TypeORM's pools hand out). */
interface CallbackConnection {
  query(sql: string, values: unknown[], done: (error: unknown, result?: unknown, fields?: unknown) => void): unknown;
  release(): void;
  destroy(): void;
}

/** The promise API hilo-core's MySQL graph target takes, over a callback connection. */
const promiseConnection = (connection: CallbackConnection): MysqlQueryableLike & CallbackConnection => ({
  query: ((sql: string, values: unknown[] = []) =>
    new Promise((resolve, reject) =>
      connection.query(sql, values, (error, result, fields) =>
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error, as it came
        error ? reject(error) : resolve([result, fields]),
      ),
    )) as never,
  release: () => connection.release(),
  destroy: () => connection.destroy(),
});

const hasMethods = (value: unknown, ...names: string[]): boolean =>
  typeof value === 'object' &&
  value !== null &&
  names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/**
 * Where a graph load on `dataSource` writes: its driver's pool (a connection of its own, in a transaction of its
 * own), or, given your `transaction` (an EntityManager of `dataSource.transaction()` or a QueryRunner in a
 * transaction), that transaction's connection, in a savepoint. `holdsWriteLock`: the load holds SQLite's write lock.
 */
export async function graphTargetOf(
  dataSource: DataSource,
  transaction: EntityManager | QueryRunner | undefined,
): Promise<{ target: GraphTarget; sqlite: boolean }> {
  const type = dataSource.options.type;
  const dialect = type === 'mariadb' ? 'mysql' : type;
  const driver = dataSource.driver as unknown as { master?: unknown; pool?: unknown; databaseConnection?: unknown };
  let connection: unknown;
  if (transaction !== undefined) {
    const runner = hasMethods(transaction, 'startTransaction')
      ? (transaction as QueryRunner)
      : (transaction as EntityManager | undefined)?.queryRunner;
    if (!runner?.isTransactionActive)
      throw configurationErrors.graphUnsupported(
        '`transaction` is not in a transaction: pass the EntityManager dataSource.transaction() gives your ' +
          'callback, or a QueryRunner after startTransaction()',
      );
    if (dataSourceOf(runner) !== dataSource)
      throw configurationErrors.graphUnsupported("`transaction` belongs to another DataSource than hilo's");
    const refusal = await releaseRefusal();
    if (refusal !== undefined) throw configurationErrors.graphUnsupported(`inside a transaction, ${refusal}`);
    connection = await runner.connect();
  }
  if (dialect === 'postgres') {
    if (connection !== undefined && hasMethods(connection, 'query'))
      return {
        target: pgGraphTarget({ connection: connection as PgGraphConnectionLike, inTransaction: true }),
        sqlite: false,
      };
    if (connection === undefined && hasMethods(driver.master, 'connect'))
      return { target: pgGraphTarget({ pool: driver.master as PgGraphPoolLike }), sqlite: false };
  } else if (dialect === 'mysql') {
    if (connection !== undefined && hasMethods(connection, 'query', 'release'))
      return {
        target: mysqlGraphTarget({
          connection: promiseConnection(connection as CallbackConnection),
          inTransaction: true,
        }),
        sqlite: false,
      };
    const pool = driver.pool as { getConnection(done: (error: unknown, c: CallbackConnection) => void): void };
    if (connection === undefined && hasMethods(pool, 'getConnection'))
      return {
        target: mysqlGraphTarget({
          pool: {
            getConnection: () =>
              new Promise((resolve, reject) =>
                // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's error, as it came
                pool.getConnection((error, c) => (error ? reject(error) : resolve(promiseConnection(c)))),
              ),
          },
        }),
        sqlite: false,
      };
  } else if (dialect === 'better-sqlite3') {
    const database = connection ?? driver.databaseConnection;
    if (hasMethods(database, 'prepare'))
      return { target: sqliteGraphTarget({ database: database as SqliteDatabaseLike }), sqlite: true };
  }
  throw configurationErrors.graphUnsupported(
    !['postgres', 'mysql', 'better-sqlite3'].includes(dialect) || connection === undefined
      ? `got a ${String(type)} DataSource${['postgres', 'mysql'].includes(dialect) ? ' whose pool is not open' : ''}`
      : `the connection of a ${String(type)} transaction is not one hilo knows`,
  );
}
