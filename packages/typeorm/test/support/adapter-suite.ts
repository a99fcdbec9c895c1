import { InsertQueryBuilder, type DataSource } from 'typeorm';
import type { HiLoTypeOrm, HiLoTypeOrmOptions } from 'hilo-typeorm';
import { Customer, IdCustomer, IdOrder, IdOrderItem, IdTag, IntNote, Order, OrderItem, Tag } from './entities.js';
import { openDataSource } from './data-source.js';
import type { SuiteDatabase } from './sqlite.js';
import { dataStatements, insertsByTable, selectsBeforeInsert, type StatementLog } from './statement-log.js';

/**
 * The adapter behaviours every ORM integration must show, written against TypeORM here. Each `it` states a
 * property of the adapter, not of TypeORM, so the suite can move to packages/testing with an ORM driver.
 */
export function typeormAdapterSuite(db: SuiteDatabase, hiloOptions: HiLoTypeOrmOptions = {}): void {
  let dataSource: DataSource;
  let hilo: HiLoTypeOrm;
  let log: StatementLog;

  beforeAll(async () => {
    ({ dataSource, hilo, log } = await openDataSource(db, hiloOptions));
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  function newOrderGraph(manager = dataSource.manager, n = 0): Order {
    return manager.create(Order, {
      customer: { name: `customer ${n}` },
      items: [
        { sku: `a-${n}`, quantity: 1 },
        { sku: `b-${n}`, quantity: 2 },
      ],
      tags: [{ label: `tag ${n}` }],
      total: 3,
    });
  }

  function newIdentityGraph(n = 0): IdOrder {
    return dataSource.manager.create(IdOrder, {
      customer: { name: `customer ${n}` },
      items: [
        { sku: `a-${n}`, quantity: 1 },
        { sku: `b-${n}`, quantity: 2 },
      ],
      tags: [{ label: `tag ${n}` }],
      total: 3,
    });
  }

  it('assigns keys at create() to the entity and to the new entities nested in it', () => {
    const order = newOrderGraph();
    const keys = [order.id, order.customer.id, ...order.items.map((i) => i.id)];
    for (const key of keys) expect(typeof key).toBe('number');
    expect(typeof order.tags[0]!.id).toBe('bigint');
    expect(new Set(keys.slice(2)).size).toBe(2);
    expect(hilo.segments.sort()).toEqual(['customers', 'items', 'orders', 'tags']);
  });

  it('ensure(Entity, n) puts n keys in memory, so a synchronous batch of n gets every key at create()', async () => {
    const items = dataSource.getRepository(OrderItem);
    await hilo.ensure(OrderItem, 5_000);
    const batch = Array.from({ length: 5_000 }, (_, n) => items.create({ sku: `batch-${n}`, quantity: 1 }));
    const keys = batch.map((item) => item.id);
    expect(keys.every((key) => typeof key === 'number')).toBe(true);
    expect(new Set(keys).size).toBe(5_000);
    await expect(hilo.ensure(OrderItem, -1)).rejects.toThrow(/`count`/);
    await hilo.ensure(OrderItem, 100); // the batch emptied memory: leave keys for the tests that follow
  });

  it('assigns keys through repositories, query-runner managers and transactions', async () => {
    expect(typeof dataSource.getRepository(Customer).create({ name: 'repo' }).id).toBe('number');
    expect(
      dataSource
        .getRepository(Customer)
        .create([{ name: 'x' }, { name: 'y' }])
        .every((c) => typeof c.id === 'number'),
    ).toBe(true);
    const runner = dataSource.createQueryRunner();
    try {
      expect(typeof runner.manager.create(Customer, { name: 'runner' }).id).toBe('number');
    } finally {
      await runner.release();
    }
    await dataSource.transaction(async (manager) => {
      const customer = manager.getRepository(Customer).create({ name: 'tx' });
      expect(typeof customer.id).toBe('number');
      await manager.save(customer);
    });
  });

  it('leaves keys the application set alone, and does not key relations that do not cascade inserts', () => {
    const customer = dataSource.manager.create(Customer, { id: 123456789, name: 'mine' });
    expect(customer.id).toBe(123456789);
    const item = dataSource.manager.create(OrderItem, { sku: 'x', quantity: 1, order: { total: 1 } });
    expect(typeof item.id).toBe('number');
    expect(item.order.id).toBeUndefined();
  });

  const graphSave =
    db.kind === 'sqlite'
      ? 'saves a graph of new entities with no SELECT before its INSERTs and no RETURNING of keys (row ' +
        'by row: orders have a database default)'
      : 'saves a graph of new entities with one multi-row INSERT per table, no SELECT and no RETURNING of keys';
  it(graphSave, async () => {
    const orders = [0, 1, 2].map((n) => newOrderGraph(dataSource.manager, n));
    const statements = await log.capture(() => dataSource.manager.save(orders));
    const data = dataStatements(statements);
    const inserts = insertsByTable(data);
    expect([...inserts.keys()].sort()).toEqual(['customers', 'order_items', 'order_tags', 'orders', 'tags']);
    expect(selectsBeforeInsert(data)).toEqual([]);
    expect(data.join('\n')).not.toMatch(/UPDATE/i);
    if (db.kind === 'sqlite') {
      // TypeORM's SQLite driver has no RETURNING: when any entity of the save has a database default
      // (orders.total), it inserts row by row and re-SELECTs the defaults by key after each INSERT, for
      // hilo keys and identity keys alike. typeorm.sqlite.test.ts shows multi-row INSERTs without defaults.
      for (const table of ['customers', 'orders', 'tags']) expect(inserts.get(table)).toHaveLength(3);
      expect(data.filter((s) => /^SELECT/i.test(s))).toHaveLength(3);
    } else {
      for (const [, list] of inserts) expect(list).toHaveLength(1);
      expect(data).toHaveLength(5);
      expect(data.join('\n')).not.toMatch(/SELECT/i);
    }
    // TypeORM returns database defaults (`total`), never the key: it was sent, not generated
    expect(data.join('\n')).not.toMatch(/RETURNING[^\n]*["`]id["`]/i);

    const loaded = await dataSource.getRepository(Order).find({
      where: { id: orders[1]!.id },
      relations: { customer: true, items: true, tags: true },
    });
    expect(loaded).toHaveLength(1);
    const [order] = loaded;
    expect(order!.id).toBe(orders[1]!.id);
    expect(order!.customerId).toBe(orders[1]!.customer.id);
    expect(order!.customer.id).toBe(orders[1]!.customer.id);
    expect(order!.items.map((i) => i.id).sort()).toEqual(orders[1]!.items.map((i) => i.id).sort());
    expect(order!.tags[0]!.id).toBe(orders[1]!.tags[0]!.id);
  });

  it('writes integer keys into INSERTs as quoted literals, not bound parameters, and stores them exactly', async () => {
    // TypeORM 0.3 releases before createColumnValueExpression existed keep binding keys (typeorm-internals.ts, 5.)
    const literal =
      typeof (InsertQueryBuilder.prototype as unknown as { createColumnValueExpression?: unknown })
        .createColumnValueExpression === 'function';
    const beyondDouble = 2n ** 60n + 7n; // a bigint key no double holds
    const order = newOrderGraph();
    const tag = dataSource.manager.create(Tag, { id: beyondDouble, label: 'beyond' });
    const statements = await log.capture(async () => {
      await dataSource.manager.save(order);
      await dataSource.manager.save(tag);
      await dataSource
        .createQueryBuilder()
        .insert()
        .into(Customer)
        .values({ id: 987654321, name: 'builder' })
        .execute();
    });
    const inserts = insertsByTable(dataStatements(statements));
    const written = (table: string, key: number | bigint) =>
      (inserts.get(table) ?? []).some((sql) => sql.includes(`'${key}'`));
    const keys: Array<[string, number | bigint]> = [
      ['orders', order.id],
      ['customers', order.customer.id],
      ...order.items.map((item): [string, number] => ['order_items', item.id]),
      ['tags', order.tags[0]!.id],
      ['tags', beyondDouble],
      ['customers', 987654321],
    ];
    for (const [table, key] of keys) expect([table, key, written(table, key)]).toEqual([table, key, literal]);
    // a key the application typed as a string is no hilo key value: TypeORM binds it as before
    await dataSource.manager.save(
      dataSource.manager.create(Customer, { id: '876543210' as unknown as number, name: 'text key' }),
    );
    expect(log.statements.some((sql) => sql.includes("'876543210'"))).toBe(false);

    expect((await dataSource.getRepository(Tag).findOneByOrFail({ id: beyondDouble })).label).toBe('beyond');
    const loaded = await dataSource
      .getRepository(Order)
      .findOneOrFail({ where: { id: order.id }, relations: { customer: true, items: true, tags: true } });
    expect(loaded.customer.id).toBe(order.customer.id);
    expect(loaded.items.map((item) => item.id).sort()).toEqual(order.items.map((item) => item.id).sort());
    expect(await dataSource.getRepository(Customer).countBy([{ id: 987654321 }, { id: 876543210 }])).toBe(2);
    // keys typed in by hand lie above the hi store: a later DataSource's verified first block would refuse them
    await dataSource.getRepository(Customer).delete([987654321, 876543210]);
    await dataSource.getRepository(Tag).delete({ id: beyondDouble });
  });

  it('writes keys of an integer column as literals as well (on SQLite the rowid), and reads them back', async () => {
    const literal =
      typeof (InsertQueryBuilder.prototype as unknown as { createColumnValueExpression?: unknown })
        .createColumnValueExpression === 'function';
    const { dataSource: notesSource, log: notesLog } = await openDataSource(db, hiloOptions, { entities: [IntNote] });
    try {
      const notes = [1, 2, 3].map((n) => notesSource.manager.create(IntNote, { text: `note ${n}` }));
      const statements = await notesLog.capture(() => notesSource.manager.save(notes));
      const inserts = insertsByTable(dataStatements(statements)).get('int_notes') ?? [];
      for (const note of notes)
        expect([note.id, inserts.some((sql) => sql.includes(`'${note.id}'`))]).toEqual([note.id, literal]);
      const loaded = await notesSource.getRepository(IntNote).find({ order: { id: 'ASC' } });
      expect(loaded.map((note) => [note.id, note.text])).toEqual(
        notes.map((note) => [note.id, note.text]).sort((a, b) => Number(a[0]) - Number(b[0])),
      );
      expect(loaded.every((note) => typeof note.id === 'number')).toBe(true);
    } finally {
      await notesSource.destroy();
    }
  });

  it('needs no more statements than TypeORM identity keys for the same graph', async () => {
    const hiloStatements = await log.capture(() =>
      dataSource.manager.save([0, 1, 2].map((n) => newOrderGraph(dataSource.manager, n))),
    );
    const identityStatements = await log.capture(() =>
      dataSource.manager.save([0, 1, 2].map((n) => newIdentityGraph(n))),
    );
    expect(hiloStatements.length).toBeLessThanOrEqual(identityStatements.length);
    // the identity path is the reference: it must have inserted the same tables
    expect(insertsByTable(identityStatements).size).toBe(insertsByTable(hiloStatements).size);
    expect(await dataSource.getRepository(IdOrderItem).count()).toBeGreaterThan(0);
    expect(await dataSource.getRepository(IdCustomer).count()).toBeGreaterThan(0);
    expect(await dataSource.getRepository(IdTag).count()).toBeGreaterThan(0);
  });

  it('saves through a query runner with its own transaction, without a SELECT before the INSERT', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    let order: Order;
    try {
      await runner.startTransaction();
      order = newOrderGraph(runner.manager, 7);
      const statements = dataStatements(await log.capture(() => runner.manager.save(order)));
      expect(statements.some((s) => /^INSERT/i.test(s))).toBe(true);
      expect(selectsBeforeInsert(statements)).toEqual([]);
      if (db.kind !== 'sqlite') expect(statements.join('\n')).not.toMatch(/SELECT/i);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await dataSource.getRepository(OrderItem).countBy({ order: { id: order.id } })).toBe(2);
  });

  it('updates instead of inserting when an entity is saved again', async () => {
    const customer = dataSource.manager.create(Customer, { name: 'first' });
    await dataSource.manager.save(customer);
    customer.name = 'second';
    const statements = dataStatements(await log.capture(() => dataSource.manager.save(customer)));
    expect(statements.some((s) => /^UPDATE/i.test(s))).toBe(true);
    expect(statements.some((s) => /^INSERT/i.test(s))).toBe(false);
    expect((await dataSource.getRepository(Customer).findOneByOrFail({ id: customer.id })).name).toBe('second');
  });

  it('checks the table when the application replaced the key hilo gave', async () => {
    const existing = await dataSource.manager.save(dataSource.manager.create(Customer, { name: 'existing' }));
    const replacement = dataSource.manager.create(Customer, { name: 'replaced' });
    replacement.id = existing.id;
    await dataSource.manager.save(replacement);
    expect((await dataSource.getRepository(Customer).findOneByOrFail({ id: existing.id })).name).toBe('replaced');
  });

  it('checks the table for a copy of a new entity: the copy has its key, not its mark, and the entity is not changed by it', async () => {
    const original = dataSource.manager.create(Customer, { name: 'original' });
    const copy = dataSource.manager.create(Customer, { ...original, name: 'copy' });
    expect(copy.id).toBe(original.id);
    expect(Object.getOwnPropertySymbols(original)).toEqual([]);
    expect(JSON.parse(JSON.stringify(original))).toEqual({ id: original.id, name: 'original' });
    const statements = dataStatements(await log.capture(() => dataSource.manager.save(copy)));
    expect(selectsBeforeInsert(statements)).toHaveLength(1);
    expect((await dataSource.getRepository(Customer).findOneByOrFail({ id: original.id })).name).toBe('copy');
    // the original still holds the mark: its save inserts with no SELECT and meets the copy's row
    await expect(dataSource.manager.save(original)).rejects.toThrow(/unique|duplicate|primary/i);
  });

  it('inserts entities again, keys unchanged, when they are saved after their transaction rolled back', async () => {
    const order = newOrderGraph(dataSource.manager, 9);
    const keys = [order.id, order.customer.id, ...order.items.map((i) => i.id)];
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.save(order);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await dataSource.getRepository(Order).countBy({ id: order.id })).toBe(0);
    // the INSERT was attempted: this save looks the keys up (nothing there) and inserts
    const statements = dataStatements(await log.capture(() => dataSource.manager.save(order)));
    expect(selectsBeforeInsert(statements).length).toBeGreaterThan(0);
    expect([order.id, order.customer.id, ...order.items.map((i) => i.id)]).toEqual(keys);
    expect(await dataSource.getRepository(OrderItem).countBy({ order: { id: order.id } })).toBe(2);
  });

  it('updates the stored row when create() is given the key of an existing row', async () => {
    const existing = await dataSource.manager.save(dataSource.manager.create(Customer, { name: 'before' }));
    const count = await dataSource.getRepository(Customer).count();
    const again = dataSource.manager.create(Customer, { id: existing.id, name: 'after' });
    const statements = dataStatements(await log.capture(() => dataSource.manager.save(again)));
    // not fresh: TypeORM looks the key up and updates
    expect(selectsBeforeInsert(statements)).toHaveLength(1);
    expect(statements.some((s) => /^UPDATE/i.test(s))).toBe(true);
    expect(await dataSource.getRepository(Customer).count()).toBe(count);
    expect((await dataSource.getRepository(Customer).findOneByOrFail({ id: existing.id })).name).toBe('after');
  });

  it(
    "fails with the database's duplicate-key error, saving nothing, when the application gives one " +
      'new entity the key of another',
    async () => {
      const first = dataSource.manager.create(Customer, { name: 'first' });
      const copy = dataSource.manager.create(Customer, { name: 'copy' });
      copy.id = first.id;
      await expect(dataSource.manager.save([first, copy])).rejects.toThrow(/unique|duplicate|primary/i);
      expect(await dataSource.getRepository(Customer).countBy({ id: first.id })).toBe(0);
    },
  );

  it("saves with TypeORM's own SELECT before INSERT when the shortcut is off, with the same keys and rows", async () => {
    // a second DataSource on the same database (a new empty one for :memory:)
    const plain = await openDataSource(
      db,
      { ...hiloOptions, saveWithoutSelect: false },
      { synchronize: db.url === ':memory:' },
    );
    try {
      expect(plain.hilo.savesWithoutSelect).toBe(false);
      expect(hilo.savesWithoutSelect).toBe(true);
      const order = plain.dataSource.manager.create(Order, {
        customer: { name: 'fallback' },
        items: [{ sku: 'f', quantity: 1 }],
        tags: [{ label: 'fallback' }],
        total: 1,
      });
      const id = order.id;
      expect(typeof id).toBe('number');
      const statements = dataStatements(await plain.log.capture(() => plain.dataSource.manager.save(order)));
      expect(selectsBeforeInsert(statements).length).toBeGreaterThan(0);
      expect(insertsByTable(statements).has('orders')).toBe(true);
      expect(order.id).toBe(id);
      const loaded = await plain.dataSource
        .getRepository(Order)
        .findOneOrFail({ where: { id }, relations: { customer: true, items: true, tags: true } });
      expect(loaded.customer.id).toBe(order.customer.id);
      expect(loaded.items.map((i) => i.id)).toEqual([order.items[0]!.id]);
      expect(loaded.tags.map((t) => t.id)).toEqual([order.tags[0]!.id]);
    } finally {
      await plain.dataSource.destroy();
    }
  });

  it('assigns missing keys before insert for new X(), insert(), query-builder inserts and cascades', async () => {
    const plain = new Customer();
    plain.name = 'constructed';
    const order = new Order();
    order.customer = plain;
    order.total = 1;
    const item = new OrderItem();
    item.sku = 'c';
    item.quantity = 1;
    order.items = [item];
    order.tags = [];
    await dataSource.manager.save(order);
    expect(typeof order.id).toBe('number');
    expect(typeof plain.id).toBe('number');
    expect(typeof item.id).toBe('number');

    const values = [{ name: 'insert 1' }, { name: 'insert 2' }];
    await dataSource.getRepository(Customer).insert(values);
    const qb = { name: 'query builder' };
    await dataSource.createQueryBuilder().insert().into(Customer).values(qb).execute();
    const ids = [...values, qb].map((v) => (v as { id?: number }).id);
    for (const id of ids) expect(typeof id).toBe('number');
    expect(await dataSource.getRepository(Customer).countBy(ids.map((id) => ({ id: id! })))).toBe(3);
  });

  it('reads keys back as numbers or bigints, never strings', async () => {
    const order = await dataSource.manager.save(newOrderGraph());
    const loaded = await dataSource
      .getRepository(Order)
      .findOneOrFail({ where: { id: order.id }, relations: { tags: true, items: true } });
    expect(typeof loaded.id).toBe('number');
    expect(typeof loaded.customerId).toBe('number');
    expect(typeof loaded.items[0]!.id).toBe('number');
    expect(typeof loaded.tags[0]!.id).toBe('bigint');
    expect(typeof order.id).toBe('number');
  });

  it('consumes no keys when loading entities', async () => {
    await dataSource.manager.save([0, 1, 2, 3].map((n) => newOrderGraph(dataSource.manager, n)));
    const issued = () => Object.values(hilo.generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    const before = issued();
    const loaded = await dataSource
      .getRepository(Order)
      .find({ relations: { customer: true, items: true, tags: true } });
    expect(loaded.length).toBeGreaterThan(3);
    await dataSource.getRepository(Customer).find();
    await dataSource.getRepository(OrderItem).findBy({ quantity: 1 });
    expect(issued()).toBe(before);
    dataSource.manager.create(Customer, { name: 'after' });
    expect(issued()).toBe(before + 1);
  });
}
