import { DataSource } from 'typeorm';
import { describeSqlite } from '../../typeorm/test/support/sqlite.js';
import { withHiLo } from 'hilo-typeorm';
import { Customer, entities } from '../../typeorm/test/support/entities.js';

// jest.config.ts maps `typeorm` to one npm-aliased release per project and names it in this global; prove the
// mapping took, so that the hilo-typeorm suites this project reruns really ran against that release.
const expected = (globalThis as { HILO_TYPEORM_VERSION?: string }).HILO_TYPEORM_VERSION;
const line = expected?.startsWith('0.3.') ? '0.3' : '1.x';
// TypeORM 0.3's EntityManager names its DataSource `connection` only; 1.x names it `dataSource` (and keeps
// `connection` as a deprecated getter): hilo-typeorm reads `dataSource` first
const present = line === '0.3' ? 'connection' : 'dataSource';

describeSqlite(`typeorm ${line} compatibility: the mapped package`, (db) => {
  it(`is TypeORM ${expected}, whose EntityManager knows its DataSource as \`${present}\`, and create() gets a key`, async () => {
    expect(expected).toMatch(/^(0\.3\.\d+|1\.\d+\.\d+)$/);
    const typeormPackage = (await import('typeorm/package.json', { with: { type: 'json' } })) as {
      default: { version: string };
    };
    expect(typeormPackage.default.version).toBe(expected);
    const dataSource = withHiLo(
      new DataSource({ type: 'better-sqlite3', database: db.url, entities, synchronize: true }),
    );
    await dataSource.initialize();
    try {
      expect((dataSource.manager as unknown as Record<string, unknown>)[present]).toBe(dataSource);
      if (line === '0.3')
        expect((dataSource.manager as unknown as { dataSource?: unknown }).dataSource).toBeUndefined();
      const customer = dataSource.manager.create(Customer, { name: 'ada' });
      expect(customer.id).toEqual(expect.any(Number));
      await dataSource.manager.save(customer);
      expect(await dataSource.manager.countBy(Customer, { id: customer.id })).toBe(1);
    } finally {
      await dataSource.destroy();
    }
  });
});
