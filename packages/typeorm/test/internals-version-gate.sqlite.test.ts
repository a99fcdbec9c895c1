import 'reflect-metadata';
import { jest } from '@jest/globals';

// A TypeORM release hilo-typeorm does not know: its package.json says 2.0.0 (Jest gives this file its own
// module registry, so the other suites see the real one). hilo must leave every private class alone.
jest.unstable_mockModule('typeorm/package.json', () => ({ default: { name: 'typeorm', version: '2.0.0' } }));

const { SubjectDatabaseEntityLoader } = await import('typeorm/persistence/SubjectDatabaseEntityLoader.js');
const { CascadesSubjectBuilder } = await import('typeorm/persistence/subject-builder/CascadesSubjectBuilder.js');
const { OneToManySubjectBuilder } = await import('typeorm/persistence/subject-builder/OneToManySubjectBuilder.js');
const { EntityMetadata } = await import('typeorm/metadata/EntityMetadata.js');
const { InsertQueryBuilder } = await import('typeorm/query-builder/InsertQueryBuilder.js');
const { openDataSource } = await import('./support/data-source.js');
const { Order } = await import('./support/entities.js');
const { describeSqlite } = await import('./support/sqlite.js');
const { dataStatements, selectsBeforeInsert } = await import('./support/statement-log.js');
const { captureWarnings } = await import('./support/warnings.js');

describeSqlite('on a TypeORM release hilo does not know, its internals stay untouched', (db) => {
  it('replaces no method, warns once naming the release, and saves with the keys create() gave', async () => {
    const prototypes = [
      SubjectDatabaseEntityLoader.prototype,
      CascadesSubjectBuilder.prototype,
      EntityMetadata.prototype,
      OneToManySubjectBuilder.prototype,
      InsertQueryBuilder.prototype,
    ] as unknown as Array<Record<string, unknown>>;
    const methods = () => [
      prototypes[0]!.load,
      prototypes[1]!.findByPersistEntityLike,
      prototypes[2]!.getEntityIdMap,
      prototypes[3]!.buildForSubjectRelation,
      prototypes[4]!.createColumnValueExpression,
    ];
    const before = methods();
    const { warnings, restore } = captureWarnings();
    try {
      const { dataSource, hilo, log } = await openDataSource(db);
      try {
        expect(hilo.savesWithoutSelect).toBe(false);
        expect(methods()).toEqual(before);
        expect(dataSource.entityMetadatas.filter((metadata) => Object.hasOwn(metadata, 'getEntityIdMap'))).toEqual([]);
        const hiloWarnings = warnings.filter((w) => w.code === 'HILO_TYPEORM_SAVE_SELECT');
        expect(hiloWarnings).toHaveLength(1);
        expect(hiloWarnings[0]!.message).toMatch(
          new RegExp(
            /^hilo-typeorm: TypeORM 2\.0\.0 is not a release whose internals hilo-typeorm knows \(0\.3\.x and 1\.x\)\. /
              .source + /save\(\) of new hilo entities falls back/.source,
          ),
        );

        const order = dataSource.manager.create(Order, {
          customer: { name: 'c' },
          items: [{ sku: 's', quantity: 1 }],
          total: 2,
        });
        const keys = [order.id, order.customer.id, order.items[0]!.id];
        expect(keys.every((key) => typeof key === 'number')).toBe(true);
        const statements = dataStatements(await log.capture(() => dataSource.manager.save(order)));
        expect(selectsBeforeInsert(statements).length).toBeGreaterThan(0);
        expect(statements.join('\n')).not.toContain(`'${order.id}'`); // keys are bound, not written as literals
        const loaded = await dataSource
          .getRepository(Order)
          .findOneOrFail({ where: { id: order.id }, relations: { customer: true, items: true } });
        expect([loaded.id, loaded.customer.id, loaded.items[0]!.id]).toEqual(keys);
      } finally {
        await dataSource.destroy();
      }
    } finally {
      restore();
    }
  });
});
