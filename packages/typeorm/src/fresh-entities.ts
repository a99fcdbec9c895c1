import type { DataSource, EntityMetadata } from 'typeorm';

/**
 * Entities whose key hilo assigned and which no INSERT has been attempted for. hilo reserved that key in
 * the database for this process alone, so no row can carry it yet: saving such an entity must insert, and
 * the SELECT TypeORM issues to tell insert from update is unnecessary.
 */
const fresh = new WeakMap<object, { readonly dataSource: DataSource; readonly key: unknown; readonly metadata: EntityMetadata }>();

/** Remembers that hilo gave `entity` its `key`. */
export function markFresh(dataSource: DataSource, metadata: EntityMetadata, entity: object, key: unknown): void {
  fresh.set(entity, { dataSource, key, metadata });
}

/** Forgets the mark (an INSERT of the entity is under way). */
export function forgetFresh(entity: object): void {
  fresh.delete(entity);
}

/** Whether `entity` still holds the key hilo gave it, unsaved; the mark is consumed. */
function takeFresh(dataSource: DataSource, metadata: EntityMetadata, entity: object): boolean {
  const mark = fresh.get(entity);
  if (!mark || mark.dataSource !== dataSource || mark.metadata !== metadata || metadata.primaryColumns.length !== 1) return false;
  fresh.delete(entity);
  const column = metadata.primaryColumns[0]!;
  // The application may have overwritten the key with one of its own: then TypeORM must check the table.
  return column.getEntityValue(entity) === mark.key;
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
  return (
    typeof s.canBeInserted === 'boolean' &&
    'identifier' in s &&
    typeof s.metadata === 'object' &&
    s.metadata !== null &&
    Array.isArray(s.metadata.primaryColumns)
  );
}

const WARNING_CODE = 'HILO_TYPEORM_SAVE_SELECT';
let warned = false;

/** Warns once per process that `save()` falls back to TypeORM's SELECT before INSERT. */
function warnFallback(reason: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `hilo-typeorm: ${reason}. save() of new hilo entities falls back to TypeORM's usual path (a SELECT by key, then INSERT): keys stay correct, saving is one statement per table slower. Please report your TypeORM version.`,
    { code: WARNING_CODE },
  );
}

const patchedPrototypes = new WeakSet<object>();

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
  if (typeof prototype !== 'object' || prototype === null) {
    return 'TypeORM has no SubjectDatabaseEntityLoader class where hilo expects it';
  }
  if (patchedPrototypes.has(prototype)) return undefined;
  const target = prototype as { load?: unknown };
  if (typeof target.load !== 'function' || target.load.length !== 1) {
    return "TypeORM's SubjectDatabaseEntityLoader has no load(operation) method";
  }
  const load = target.load as Load;
  const patched: Load = function (operation) {
    if (operation !== 'save') return load.call(this, operation);
    const dataSource = this.queryRunner?.dataSource ?? this.queryRunner?.connection;
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
        takeFresh(dataSource, subject.metadata, subject.entity)
      ) {
        subject.identifier = undefined;
      }
    }
    return load.call(this, operation);
  };
  target.load = patched;
  patchedPrototypes.add(prototype);
  return undefined;
}

let shortcut: Promise<boolean> | undefined;

/**
 * Installs the `save()` shortcut on TypeORM's loader once per process. Resolves `false` (after one
 * warning) when TypeORM's internals are not what hilo expects, so that callers leave entities unmarked and
 * TypeORM keeps its own SELECT-then-INSERT.
 */
export function freshEntityShortcut(): Promise<boolean> {
  shortcut ??= import('typeorm/persistence/SubjectDatabaseEntityLoader.js').then(
    (module: { SubjectDatabaseEntityLoader?: { prototype?: unknown } }) => {
      const reason = patchSubjectLoader(module.SubjectDatabaseEntityLoader?.prototype);
      if (reason !== undefined) warnFallback(reason);
      return reason === undefined;
    },
    () => {
      warnFallback("TypeORM's module persistence/SubjectDatabaseEntityLoader cannot be loaded");
      return false;
    },
  );
  return shortcut;
}
