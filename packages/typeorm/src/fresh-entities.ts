import type { DataSource, EntityMetadata, QueryRunner } from 'typeorm';
import { SubjectDatabaseEntityLoader } from 'typeorm/persistence/SubjectDatabaseEntityLoader.js';

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
  if (!mark || mark.dataSource !== dataSource || metadata.primaryColumns.length !== 1) return false;
  fresh.delete(entity);
  const column = metadata.primaryColumns[0]!;
  // The application may have overwritten the key with one of its own: then TypeORM must check the table.
  return column.getEntityValue(entity) === mark.key;
}

interface LoaderSubject {
  metadata: EntityMetadata;
  entity?: object;
  databaseEntity?: object;
  canBeInserted: boolean;
  identifier: unknown;
}

let patched = false;

/**
 * Makes `save()` treat hilo's fresh entities like TypeORM's own new entities: before loading database
 * entities, their subjects lose the identifier, which is exactly the state of a new entity whose key the
 * database would generate. TypeORM then skips the SELECT, plans an INSERT, resolves relations to them
 * through the subject (as for identity keys) and sets the identifier from the INSERT's value set.
 * The mark is consumed here, so a second `save()` of the same object takes TypeORM's usual path.
 */
export function installFreshEntityShortcut(): void {
  if (patched) return;
  patched = true;
  const prototype = SubjectDatabaseEntityLoader.prototype as unknown as {
    load(this: { queryRunner: QueryRunner; subjects: LoaderSubject[] }, operation: string): Promise<void>;
  };
  const load = prototype.load;
  prototype.load = function (operation) {
    if (operation === 'save') {
      const dataSource = this.queryRunner.dataSource;
      for (const subject of this.subjects) {
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
    }
    return load.call(this, operation);
  };
}
