import 'reflect-metadata';
import {
  Column,
  CreateDateColumn,
  UpdateDateColumn,
  VersionColumn,
  DataSource,
  Entity,
  JoinColumn,
  JoinTable,
  ManyToMany,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import {
  HiLoConfigurationError,
  HiLoGeneratedColumn,
  HiLoGraphLoadError,
  installHiLo,
  type HiLoTypeOrm,
} from 'hilo-typeorm';
import { connectionOptions } from './data-source.js';
import type { SuiteDatabase } from './sqlite.js';

// A graph load's entities: orders with items (one-to-many cascading inserts, the item's foreign key also a property
// of its own), notes that do not cascade, and entities a graph load refuses.

const upper = {
  to: (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value),
  from: (v: unknown) => v,
};

@Entity('graph_orders')
export class GraphOrder {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) reference!: string;
  @Column({ type: 'varchar', length: 40, transformer: upper }) tag!: string;
  @Column({ type: 'int', default: 7 }) priority!: number;
  @CreateDateColumn({ name: 'created_at' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at' }) updatedAt!: Date;
  @VersionColumn() version!: number;
  @OneToMany(() => GraphItem, (item) => item.order, { cascade: ['insert'] }) items!: GraphItem[];
  @OneToMany(() => GraphNote, (note) => note.order) notes?: GraphNote[];
}

@Entity('graph_items')
export class GraphItem {
  @HiLoGeneratedColumn() id!: number;
  @Column({ name: 'order_id', type: 'bigint' }) orderId!: number;
  @ManyToOne(() => GraphOrder, (order) => order.items, { nullable: false })
  @JoinColumn({ name: 'order_id' })
  order?: GraphOrder;
  @Column({ type: 'varchar', length: 20 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
}

@Entity('graph_notes')
export class GraphNote {
  @HiLoGeneratedColumn() id!: number;
  @ManyToOne(() => GraphOrder, (order) => order.notes) order?: GraphOrder;
  @Column({ type: 'varchar', length: 40 }) text!: string;
}

@Entity('graph_plain')
export class GraphPlain {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) name!: string;
}

@Entity('graph_labels')
export class GraphLabel {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) name!: string;
}

@Entity('graph_labelled')
export class GraphLabelled {
  @HiLoGeneratedColumn() id!: number;
  @ManyToMany(() => GraphLabel, { cascade: ['insert'] })
  @JoinTable({ name: 'graph_labelled_labels' })
  labels!: GraphLabel[];
}

@Entity('graph_stamped')
export class GraphStamped {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40, default: () => "'computed'" }) origin!: string;
}

const entities = [GraphOrder, GraphItem, GraphNote, GraphPlain, GraphLabel, GraphLabelled, GraphStamped];

const order = (reference: string, skus: Array<string | null>): GraphOrder =>
  Object.assign(new GraphOrder(), {
    reference,
    tag: `t-${reference}`,
    items: skus.map((sku, i) => Object.assign(new GraphItem(), { sku, quantity: i + 1 })),
  });

/** Rows of a SELECT (TypeORM 0.3's query() is not generic, 1.x's is). */
async function select<Row>(runner: { query(sql: string): Promise<unknown> }, sql: string): Promise<Row[]> {
  const result: unknown = await runner.query(sql);
  return result as Row[];
}

async function* stream<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}

/** hilo-typeorm's graph loads on `db`: real database, real TypeORM, keys read back. */
export function graphLoadSuite(db: SuiteDatabase): void {
  let dataSource: DataSource;
  let hilo: HiLoTypeOrm;
  // SQLite: an array, which hilo reserves for before the load (a stream's keys must be in memory: the last test)
  const feed = <T>(items: readonly T[]): AsyncIterable<T> | readonly T[] =>
    db.kind === 'sqlite' ? items : stream(items);

  beforeAll(async () => {
    dataSource = new DataSource({ ...connectionOptions(db), entities, synchronize: true });
    await dataSource.initialize();
    hilo = await installHiLo(dataSource, { blockSize: 10 });
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });
  beforeEach(async () => {
    for (const table of ['graph_items', 'graph_notes', 'graph_orders']) await dataSource.query(`delete from ${table}`);
  });

  const count = async (table: string): Promise<number> =>
    Number((await select<{ n: unknown }>(dataSource, `select count(*) as n from ${table}`))[0]!.n);

  const rows = async (sql: string) =>
    (await select<Record<string, unknown>>(dataSource, sql)).map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), typeof v === 'bigint' ? Number(v) : v])),
    );

  it('writes orders with their cascaded items: the keys in the database are those written into the entities', async () => {
    const orders = [order('A-1', ['TEA', 'CAKE']), order('A-2', ['JAM']), order('A-3', [])];
    // a plain object too, as save() takes one
    const plain = { reference: 'A-4', tag: 'plain', items: [{ sku: 'BUN', quantity: 3 }] } as Partial<GraphOrder>;
    const result = await hilo.loadGraph(GraphOrder, feed([...orders, plain]), { batchRows: 3 });
    expect(result).toEqual({ items: 4, rows: { graph_orders: 4, graph_items: 4 } });

    const all = [...orders, plain as GraphOrder];
    for (const o of all) expect(typeof o.id).toBe('number');
    const stored = await rows(
      'select id, reference, tag, priority, created_at, updated_at, version from graph_orders order by id',
    );
    expect(stored.map((row) => Number(row['id']))).toEqual(all.map((o) => o.id).sort((a, b) => a - b));
    const byId = new Map(stored.map((row) => [Number(row['id']), row]));
    for (const o of all) {
      // the column's transformer applied, the literal default written, the dates set, the version 1
      expect(byId.get(o.id)?.['tag']).toBe(String(o.tag).toUpperCase());
      expect(Number(byId.get(o.id)?.['priority'])).toBe(7);
      expect(byId.get(o.id)?.['created_at']).not.toBeNull();
      expect(byId.get(o.id)?.['updated_at']).not.toBeNull();
      expect(Number(byId.get(o.id)?.['version'])).toBe(1);
    }
    const items = await rows('select id, order_id, sku, quantity from graph_items order by id');
    const given = all.flatMap((o) =>
      o.items.map((item) => ({ id: item.id, order: o.id, sku: item.sku, own: item.orderId })),
    );
    expect(items.map((row) => [Number(row['id']), Number(row['order_id']), row['sku']])).toEqual(
      given.map((item) => [item.id, item.order, item.sku]).sort((a, b) => Number(a[0]) - Number(b[0])),
    );
    // the item's foreign-key property is set, as save() leaves it
    for (const item of given) expect(item.own).toBe(item.order);

    // TypeORM reads the graph back by the same keys
    const found = await dataSource
      .getRepository(GraphOrder)
      .findOne({ where: { id: orders[0]!.id }, relations: { items: true } });
    expect(found?.items.map((item) => item.sku).sort()).toEqual(['CAKE', 'TEA']);
  });

  it('inside dataSource.transaction(): a rollback removes the rows, a commit keeps them', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await hilo.loadGraph(GraphOrder, [order('R-1', ['TEA'])], { transaction: manager });
        expect(Number((await select<{ n: unknown }>(manager, 'select count(*) as n from graph_items'))[0]!.n)).toBe(1);
        throw new Error('rolled back by the caller');
      }),
    ).rejects.toThrow('rolled back by the caller');
    expect(await count('graph_orders')).toBe(0);
    expect(await count('graph_items')).toBe(0);

    const committed = order('C-1', ['TEA', 'JAM']);
    await dataSource.transaction(async (manager) => {
      await manager.getRepository(GraphNote).save(Object.assign(new GraphNote(), { text: 'before the load' }));
      await hilo.loadGraph(GraphOrder, [committed], { transaction: manager });
    });
    expect(await count('graph_notes')).toBe(1);
    const stored = await rows('select order_id from graph_items');
    expect(stored.map((row) => Number(row['order_id']))).toEqual([committed.id, committed.id]);
  });

  it('inside a QueryRunner transaction: a failed load leaves the transaction as it was', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.manager.getRepository(GraphNote).save(Object.assign(new GraphNote(), { text: 'kept' }));
      await expect(
        hilo.loadGraph(GraphOrder, [order('Q-1', ['TEA', null])], { transaction: runner }),
      ).rejects.toBeInstanceOf(HiLoGraphLoadError);
      await hilo.loadGraph(GraphOrder, [order('Q-2', ['TEA'])], { transaction: runner });
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await count('graph_notes')).toBe(1);
    expect((await rows('select reference from graph_orders')).map((row) => row['reference'])).toEqual(['Q-2']);
    expect(await count('graph_items')).toBe(1);
  });

  it('a bad value half-way rolls the whole load back and throws HiLoGraphLoadError naming the table', async () => {
    const orders = [order('B-1', ['TEA']), order('B-2', ['JAM']), order('B-3', ['CAKE', null])];
    const error = await hilo.loadGraph(GraphOrder, feed(orders), { batchRows: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect((error as HiLoGraphLoadError).table).toBe('graph_items');
    expect(await count('graph_orders')).toBe(0);
    expect(await count('graph_items')).toBe(0);
  });

  describe('refuses, before writing, what it cannot write as save() would', () => {
    const refusal = async (load: () => Promise<unknown>, ...words: string[]) => {
      const error = await load().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      for (const word of words) expect((error as Error).message).toContain(word);
      expect(await count('graph_orders')).toBe(0);
    };

    it('an entity without a hilo key', () =>
      refusal(() => hilo.loadGraph(GraphPlain, [{ name: 'x' }]), 'GraphPlain', '@HiLoGeneratedColumn()', 'save()'));

    it('a many-to-many relation cascading inserts', () =>
      refusal(() => hilo.loadGraph(GraphLabelled, [{}]), 'GraphLabelled', 'labels', 'many-to-many', 'save()'));

    it('entities in a relation that does not cascade inserts', () =>
      refusal(
        () =>
          hilo.loadGraph(GraphOrder, [{ ...order('N-1', []), notes: [Object.assign(new GraphNote(), { text: 'n' })] }]),
        'GraphOrder',
        'notes',
        'does not cascade inserts',
        'save()',
      ));

    it('a default only the database computes', async () => {
      await refusal(() => hilo.loadGraph(GraphStamped, [{}]), 'GraphStamped', 'origin', 'give the value');
      // given, the value is written
      await hilo.loadGraph(GraphStamped, [{ origin: 'given' }]);
      expect((await rows('select origin from graph_stamped')).map((row) => row['origin'])).toEqual(['given']);
    });

    it('an entity create() already gave a key', async () => {
      const created = dataSource.getRepository(GraphOrder).create({ reference: 'K-1', tag: 'k', items: [] });
      expect(created.id).toEqual(expect.any(Number));
      await refusal(() => hilo.loadGraph(GraphOrder, [created]), 'GraphOrder.id', 'create()', 'new Entity()');
    });

    it('an EntityManager outside a transaction', () =>
      refusal(
        () => hilo.loadGraph(GraphOrder, [order('M-1', [])], { transaction: dataSource.manager }),
        'not in a transaction',
      ));
  });

  if (db.kind === 'sqlite') {
    it('SQLite: an array is reserved for before the load; a stream beyond the keys in memory is refused, naming ensure()', async () => {
      const many = Array.from({ length: 30 }, (_, n) => order(`S-${n}`, ['TEA', 'JAM']));
      await hilo.loadGraph(GraphOrder, many);
      expect(await count('graph_items')).toBe(60);
      await dataSource.query('delete from graph_items');
      await dataSource.query('delete from graph_orders');

      const streamed = Array.from({ length: 30 }, (_, n) => order(`T-${n}`, ['TEA']));
      const error = await hilo.loadGraph(GraphOrder, stream(streamed)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      expect((error as Error).message).toContain('ensure(');
      expect(await count('graph_orders')).toBe(0);

      // with the keys in memory first, the stream loads (new objects: those of the failed load keep the keys it gave,
      // as entities of a rolled-back save() do)
      await hilo.ensure(GraphOrder, 30);
      await hilo.ensure(GraphItem, 30);
      await hilo.loadGraph(GraphOrder, stream(Array.from({ length: 30 }, (_, n) => order(`U-${n}`, ['TEA']))));
      expect(await count('graph_items')).toBe(30);
    });
  }
}
