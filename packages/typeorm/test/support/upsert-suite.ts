import 'reflect-metadata';
import { Column, Entity, JoinColumn, ManyToOne, type DataSource } from 'typeorm';
import { HiLoGeneratedColumn, hiloKeyTransformer, withHiLo } from 'hilo-typeorm';
import { DataSource as TypeOrmDataSource } from 'typeorm';
import { connectionOptions } from './data-source.js';
import type { SuiteDatabase } from './sqlite.js';

@Entity('upsert_accounts')
export class Account {
  @HiLoGeneratedColumn({ blockSize: 20 }) id!: number;
  @Column({ type: 'varchar', length: 100, unique: true }) email!: string;
  @Column({ type: 'varchar', length: 100 }) name!: string;
}

@Entity('upsert_memberships')
export class Membership {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) accountId!: number;
  @ManyToOne(() => Account) @JoinColumn({ name: 'accountId' }) account?: Account;
  @Column({ type: 'varchar', length: 40 }) plan!: string;
}

/**
 * `repository.upsert()` of entities with hi/lo keys: a conflict on another unique column updates the stored
 * row and never its key, whether the key came from `create()` or is assigned at INSERT; where TypeORM reads
 * the INSERT back (PostgreSQL, MariaDB 10.5+), each entity ends up holding the key its row really has.
 */
export function typeormUpsertSuite(db: SuiteDatabase, { readsKeysBack }: { readsKeysBack: boolean }): void {
  let dataSource: DataSource;
  beforeEach(async () => {
    dataSource = withHiLo(
      new TypeOrmDataSource({
        ...connectionOptions(db),
        entities: [Account, Membership],
        synchronize: true,
        dropSchema: true,
      }),
    );
    await dataSource.initialize();
  });
  afterEach(async () => {
    await dataSource.destroy();
  });

  const stored = async (email: string) => dataSource.getRepository(Account).findOneByOrFail({ email });

  it(
    'should update the stored row on a conflict and keep its key, also for an entity from create() ' +
      'that has a key of its own',
    async () => {
      const accounts = dataSource.getRepository(Account);
      const ada = await accounts.save(accounts.create({ email: 'ada@example.com', name: 'Ada' }));
      const membership = await dataSource.getRepository(Membership).save({ accountId: ada.id, plan: 'gold' });
      const again = accounts.create({ email: 'ada@example.com', name: 'Ada Lovelace' });
      const given = again.id;
      expect(given).toBeGreaterThan(ada.id); // create() gave it a key before upsert()

      const result = await accounts.upsert(again, ['email']);

      expect(await stored('ada@example.com')).toEqual({ id: ada.id, email: 'ada@example.com', name: 'Ada Lovelace' });
      expect(await accounts.count()).toBe(1);
      expect((await dataSource.getRepository(Membership).findOneByOrFail({ id: membership.id })).accountId).toBe(
        ada.id,
      );
      // the entity reports the key its row has where TypeORM reads the INSERT back; else the unused one it was given
      expect(again.id).toBe(readsKeysBack ? ada.id : given);
      expect(result.identifiers).toEqual([{ id: readsKeysBack ? ada.id : given }]);
    },
  );

  it('should insert new rows with hilo keys and update existing ones in one batch of plain values', async () => {
    const accounts = dataSource.getRepository(Account);
    const ada = await accounts.save(accounts.create({ email: 'ada@example.com', name: 'Ada' }));
    const values = [
      { email: 'ada@example.com', name: 'Ada L.' },
      { email: 'grace@example.com', name: 'Grace' },
    ];

    const result = await accounts.upsert(values, ['email']);

    const grace = await stored('grace@example.com');
    expect(await stored('ada@example.com')).toEqual({ id: ada.id, email: 'ada@example.com', name: 'Ada L.' });
    expect(grace.id).toBeGreaterThan(ada.id);
    if (readsKeysBack) {
      expect(result.identifiers).toEqual([{ id: ada.id }, { id: grace.id }]);
      expect(values.map((value) => (value as { id?: number }).id)).toEqual([ada.id, grace.id]);
    }
    // the key the conflicting value was given is never handed out again
    const later = await Promise.all(
      Array.from({ length: 30 }, () =>
        accounts.save(accounts.create({ email: `n${Math.random()}@example.com`, name: 'N' })),
      ),
    );
    expect(new Set([ada.id, grace.id, ...later.map((account) => account.id)]).size).toBe(32);
  });

  it('should keep the stored key on a conflict inside a transaction', async () => {
    const ada = await dataSource.getRepository(Account).save({ email: 'ada@example.com', name: 'Ada' });
    await dataSource.transaction(async (manager) => {
      const again = manager.create(Account, { email: 'ada@example.com', name: 'Ada (tx)' });
      await manager.upsert(Account, again, { conflictPaths: ['email'] });
      if (readsKeysBack) expect(again.id).toBe(ada.id);
    });
    expect(await stored('ada@example.com')).toEqual({ id: ada.id, email: 'ada@example.com', name: 'Ada (tx)' });
  });

  it('should leave an upsert whose conflict target is the key to TypeORM', async () => {
    const accounts = dataSource.getRepository(Account);
    const ada = await accounts.save(accounts.create({ email: 'ada@example.com', name: 'Ada' }));
    await accounts.upsert({ id: ada.id, email: 'ada@example.com', name: 'Ada by key' }, ['id']);
    expect(await stored('ada@example.com')).toEqual({ id: ada.id, email: 'ada@example.com', name: 'Ada by key' });
  });
}
