import 'reflect-metadata';
import { Column, DataSource, Entity, EntitySchema, ManyToOne } from 'typeorm';
import { HiLoConfigurationError } from 'hilo-core';
import { HiLoGeneratedColumn, hiloColumn, hiloOf, withHiLo } from 'hilo-typeorm';

// Issue 41: a DataSource created without withHiLo() leaves every hi/lo key undefined, and the database used to
// answer with its generic NOT NULL error, naming nothing of hilo. Now the write stops in TypeORM's own
// value conversion with a hilo error that names the column and the line that installs hilo, on every
// DataSource without hilo, also while another one with hilo serves the same entities.

@Entity('forgotten_customers')
class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) name!: string;
}

@Entity('forgotten_orders')
class Order {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'integer' }) total!: number;
  @ManyToOne(() => Customer, { nullable: true }) customer?: Customer | null;
}

interface Note {
  id: number;
  text: string;
}
const NoteSchema = new EntitySchema<Note>({
  name: 'ForgottenNote',
  tableName: 'forgotten_notes',
  columns: { id: hiloColumn(), text: { type: 'varchar', length: 40 } },
});

const options = {
  type: 'better-sqlite3' as const,
  database: ':memory:',
  entities: [Customer, Order, NoteSchema],
  synchronize: true,
};

describe('a DataSource hilo is not installed on', () => {
  let plain: DataSource;
  beforeAll(async () => {
    plain = await new DataSource(options).initialize();
  });
  afterAll(async () => {
    await plain.destroy();
  });

  it('refuses to save a hi/lo entity without a key with a hilo error naming the column and withHiLo()', async () => {
    const order = plain.manager.create(Order, { total: 10 });
    expect(order.id).toBeUndefined();
    const error = await plain.manager.save(order).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HiLoConfigurationError);
    expect((error as Error).message).toMatch(/^Order\.id is a hi\/lo key, but a row is being written without one/);
    expect((error as Error).message).toContain('withHiLo(new DataSource(options))');
    expect(await plain.getRepository(Order).count()).toBe(0);
  });

  it('says the same for insert(), the query builder and an EntitySchema column', async () => {
    await expect(plain.getRepository(Customer).insert({ name: 'ada' })).rejects.toThrow(
      /^Customer\.id is a hi\/lo key.*withHiLo/s,
    );
    await expect(plain.createQueryBuilder().insert().into(Order).values({ total: 3 }).execute()).rejects.toBeInstanceOf(
      HiLoConfigurationError,
    );
    await expect(plain.getRepository(NoteSchema).save({ text: 'x' })).rejects.toThrow(
      /hiloColumn\(\) column is a hi\/lo key.*withHiLo/s,
    );
  });

  it('writes and reads rows whose keys the application gave, and filters by key, as before', async () => {
    const customer = await plain.getRepository(Customer).save({ id: 41, name: 'given' });
    await plain.getRepository(Order).save({ id: 42, total: 5, customer });
    // a nullable foreign key to a hi/lo key left empty is no missing key
    await plain.getRepository(Order).save({ id: 43, total: 6, customer: null });
    expect((await plain.getRepository(Order).findOneByOrFail({ id: 42 })).total).toBe(5);
    expect(await plain.getRepository(Order).countBy({ customer: { id: 41 } })).toBe(1);
    await plain.getRepository(Order).delete([42, 43]);
    await plain.getRepository(Customer).delete(41);
  });

  it('speaks for the DataSource without hilo while one with hilo serves the same entities, which stays quiet', async () => {
    const installed = await withHiLo(new DataSource(options), { blockSize: 5 }).initialize();
    try {
      const order = await installed.manager.save(installed.manager.create(Order, { total: 1 }));
      expect(order.id).toBeGreaterThan(0);
      // the check is per DataSource: the plain one, open at the same time, still names the missing line
      await expect(plain.manager.save(plain.manager.create(Order, { total: 2 }))).rejects.toThrow(
        /^Order\.id is a hi\/lo key.*withHiLo/s,
      );
      await expect(plain.getRepository(NoteSchema).save({ text: 'y' })).rejects.toThrow(
        /hiloColumn\(\) column.*withHiLo/s,
      );
      // and the installed one keys every path, EntitySchema included
      const note = await installed.getRepository(NoteSchema).save({ text: 'z' });
      expect(note.id).toBeGreaterThan(0);
      await installed.createQueryBuilder().insert().into(Customer).values({ name: 'qb' }).execute();
      expect(await installed.getRepository(Customer).countBy({ name: 'qb' })).toBe(1);
    } finally {
      await installed.destroy();
    }
    await expect(plain.manager.save(plain.manager.create(Order, { total: 2 }))).rejects.toThrow(/withHiLo/);
    expect(await plain.getRepository(Order).count()).toBe(0);
  });

  it('speaks again on a DataSource whose hilo was closed', async () => {
    const ds = await withHiLo(new DataSource(options), { blockSize: 5 }).initialize();
    try {
      await ds.manager.save(ds.manager.create(Customer, { name: 'before close' }));
      await hiloOf(ds).close();
      await expect(ds.manager.save(ds.manager.create(Customer, { name: 'after close' }))).rejects.toThrow(
        /^Customer\.id is a hi\/lo key.*withHiLo/s,
      );
    } finally {
      await ds.destroy();
    }
  });
});
