import 'reflect-metadata';
import { SubjectDatabaseEntityLoader } from 'typeorm/persistence/SubjectDatabaseEntityLoader.js';
import { patchSubjectLoader } from '../src/typeorm-internals.js';
import { openDataSource } from './support/data-source.js';
import { Order } from './support/entities.js';
import { describeSqlite } from './support/sqlite.js';
import { dataStatements, selectsBeforeInsert } from './support/statement-log.js';
import { captureWarnings } from './support/warnings.js';

// Jest gives each test file its own module registry: the TypeORM loaded here is this file's alone, so its
// private loader can be changed below without touching the other suites.

describe("save() shortcut: TypeORM's private loader is checked before it is patched", () => {
  it.each([
    ['a missing class', undefined, /no SubjectDatabaseEntityLoader class/],
    ['a class without load()', {}, /has no load\(operation\) method/],
    [
      'a load() with another signature',
      { load: async (_operation: string, _extra: unknown) => undefined },
      /has no load\(operation\) method/,
    ],
  ])('refuses %s, saying why', (_name, prototype, reason) => {
    expect(patchSubjectLoader(prototype)).toMatch(reason);
  });
});

describeSqlite(
  "save() shortcut: when TypeORM's internals differ, save() falls back to SELECT then INSERT with one warning",
  (db) => {
    it('installs, warns once, and saves a graph with TypeORM’s usual lookup and the keys create() gave', async () => {
      // Simulate a TypeORM whose loader changed its signature: the real method stays behind a wrapper.
      const prototype = SubjectDatabaseEntityLoader.prototype as unknown as {
        load: (...args: unknown[]) => Promise<void>;
      };
      const original = prototype.load;
      prototype.load = function (this: unknown, operation: unknown, _changed: unknown) {
        return original.call(this, operation);
      };
      const { warnings, restore } = captureWarnings();
      try {
        const first = await openDataSource(db);
        const second = await openDataSource(db, {}, { synchronize: false });
        try {
          expect(first.hilo.savesWithoutSelect).toBe(false);
          expect(second.hilo.savesWithoutSelect).toBe(false);
          const hiloWarnings = warnings.filter((w) => w.code === 'HILO_TYPEORM_SAVE_SELECT');
          expect(hiloWarnings).toHaveLength(1);
          expect(hiloWarnings[0]!.message).toMatch(
            /falls back to TypeORM's usual path \(a SELECT by key, then INSERT\): keys stay correct/,
          );

          const { dataSource, log } = first;
          const order = dataSource.manager.create(Order, {
            customer: { name: 'c' },
            items: [{ sku: 's', quantity: 1 }],
            tags: [{ label: 't' }],
            total: 2,
          });
          const keys = [order.id, order.customer.id, order.items[0]!.id, order.tags[0]!.id];
          const statements = dataStatements(await log.capture(() => dataSource.manager.save(order)));
          expect(selectsBeforeInsert(statements).length).toBeGreaterThan(0);
          expect([order.id, order.customer.id, order.items[0]!.id, order.tags[0]!.id]).toEqual(keys);
          const loaded = await second.dataSource
            .getRepository(Order)
            .findOneOrFail({ where: { id: order.id }, relations: { customer: true, items: true, tags: true } });
          expect([loaded.id, loaded.customer.id, loaded.items[0]!.id, loaded.tags[0]!.id]).toEqual(keys);
        } finally {
          await second.dataSource.destroy();
          await first.dataSource.destroy();
        }
      } finally {
        restore();
        prototype.load = original;
      }
    });
  },
);
