import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { describeMysql, describePostgres, type TestDatabase } from '@hilo/testing';
import { HiLo } from '../../src/index.js';
import { openOrm, type Kind, type StatementLog } from './orm.js';
import { createSchema } from './compat.js';

/** One entity style (defineEntity, ES decorators, legacy decorators) of the shop model. */
export interface ShopModel {
  readonly style: string;
  readonly entities: readonly unknown[];
  readonly Customer: unknown;
  readonly Order: unknown;
  readonly OrderItem: unknown;
  /** Segments the model's keys draw from, sorted. */
  readonly segments: readonly string[];
}

interface Keyed {
  id: number;
}
interface CustomerLike extends Keyed {
  name: string;
  orders: { getItems(): OrderLike[] };
}
interface OrderLike extends Keyed {
  reference: string;
  customer: CustomerLike;
  items: { getItems(): Keyed[] };
}

/** `em.create()` of a customer with `orders` orders of `items` items each, typed loosely across styles. */
export function createCustomer(em: EntityManager, model: ShopModel, name: string, orders = 2, items = 3): CustomerLike {
  return em.create(
    model.Customer as never,
    {
      name,
      orders: Array.from({ length: orders }, (_, o) => ({
        reference: `${name}-${o}`,
        items: Array.from({ length: items }, (_, i) => ({ sku: `sku-${i}`, quantity: i + 1 })),
      })),
    } as never,
  );
}

function graphKeys(customer: CustomerLike): { customers: number[]; orders: number[]; items: number[] } {
  const orders = customer.orders.getItems();
  return {
    customers: [customer.id],
    orders: orders.map((o) => o.id),
    items: orders.flatMap((o) => o.items.getItems().map((i) => i.id)),
  };
}

async function count(em: EntityManager, table: string): Promise<number> {
  const rows = await em.getConnection().execute<Array<{ n: number | string }>>(`select count(*) as n from ${table}`);
  return Number(rows[0]?.n);
}

/** The adapter's behaviour for one entity style on one database. */
export function adapterSuite(kind: Exclude<Kind, 'sqlite'>, model: ShopModel): void {
  const describeDb = kind === 'postgres' ? describePostgres : describeMysql;
  describeDb(`mikro-orm ${model.style} on ${kind}`, (db: TestDatabase) => {
    let orm: MikroORM;
    let log: StatementLog;

    beforeAll(async () => {
      ({ orm, log } = await openOrm(kind, db.url, model.entities, { blockSize: 50 }));
      await createSchema(orm);
    });
    afterAll(async () => {
      await orm?.close();
    });
    beforeEach(() => log.clear());

    it('should reserve a block for every keyed entity during MikroORM.init()', () => {
      const stats = HiLo.generator(orm).stats();
      expect(Object.keys(stats).sort()).toEqual(model.segments);
    });

    it('should assign keys at em.create() for a nested graph, before any SQL', () => {
      const em = orm.em.fork();
      const customer = createCustomer(em, model, 'ada');
      const keys = graphKeys(customer);
      const all = [...keys.customers, ...keys.orders, ...keys.items];
      expect(all).toHaveLength(1 + 2 + 6);
      for (const key of all) expect(Number.isSafeInteger(key) && key > 0).toBe(true);
      expect(new Set(keys.orders).size).toBe(2);
      expect(new Set(keys.items).size).toBe(6);
      expect(customer.orders.getItems()[0]?.customer).toBe(customer);
      expect(log.statements).toEqual([]);
    });

    it('should persist the graph with one multi-row insert per table and no RETURNING', async () => {
      const em = orm.em.fork();
      const customers = [createCustomer(em, model, 'bob'), createCustomer(em, model, 'cy')];
      await em.flush();
      const inserts = log.inserts();
      expect(inserts).toHaveLength(3);
      expect(log.inserts('customers')).toHaveLength(1);
      expect(log.inserts('orders')).toHaveLength(1);
      expect(log.inserts('order_items')).toHaveLength(1);
      expect(log.statements.filter((s) => /\breturning\b/i.test(s))).toEqual([]);
      expect(log.writes).toHaveLength(3);

      const check = orm.em.fork();
      const order = customers[1]!.orders.getItems()[1]!;
      const loaded = (await check.findOneOrFail(model.Order as never, order.id, {
        populate: ['customer', 'items'] as never,
      })) as OrderLike;
      expect(loaded.customer.id).toBe(customers[1]!.id);
      expect(
        loaded.items
          .getItems()
          .map((i) => i.id)
          .sort((a, b) => a - b),
      ).toEqual(
        order.items
          .getItems()
          .map((i) => i.id)
          .sort((a, b) => a - b),
      );
    });

    it('should find a new entity by its key before flush, from the identity map, with no SQL', async () => {
      const em = orm.em.fork();
      const customer = createCustomer(em, model, 'fay', 1, 1);
      const order = customer.orders.getItems()[0]!;
      expect(em.getReference(model.Order as never, order.id as never)).toBe(order);
      expect(await em.findOne(model.Order as never, order.id as never)).toBe(order);
      expect(log.statements).toEqual([]);
      await em.flush();
      expect(await em.findOne(model.Order as never, order.id as never)).toBe(order);
    });

    it('should consume no keys when loading entities', async () => {
      const em = orm.em.fork();
      const before = createCustomer(em, model, 'dee', 1, 1);
      await em.flush();
      const reader = orm.em.fork();
      const loaded = (await reader.find(
        model.Customer as never,
        {},
        { populate: ['orders.items'] as never },
      )) as CustomerLike[];
      expect(loaded.length).toBeGreaterThanOrEqual(3);
      const after = createCustomer(orm.em.fork(), model, 'eve', 0, 0);
      expect(after.id).toBe(before.id + 1);
    });

    it('should never reuse a key of a rolled-back transaction, even one reserved inside it', async () => {
      const generator = HiLo.generator(orm);
      const rolledBack: number[] = [];
      await expect(
        orm.em.fork().transactional(async (em) => {
          // empties the block, so the flush below reserves a new one while the transaction is open
          await generator.reserve('customers', 60);
          const customer = createCustomer(em, model, 'rolled', 1, 1);
          await em.flush();
          rolledBack.push(...Object.values(graphKeys(customer)).flat());
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(rolledBack).toHaveLength(3);
      const em = orm.em.fork();
      expect(await em.count(model.Customer as never, { name: 'rolled' })).toBe(0);
      const next = createCustomer(em, model, 'after', 1, 1);
      await em.flush();
      expect(next.id).toBeGreaterThan(rolledBack[0]!);
      expect(
        Object.values(graphKeys(next))
          .flat()
          .filter((k) => rolledBack.includes(k)),
      ).toEqual([]);
    });

    it('should give distinct keys to concurrent forks and transactions', async () => {
      const batches = await Promise.all(
        Array.from({ length: 4 }, (_, t) =>
          orm.em.fork().transactional(async (em) => {
            const customers = Array.from({ length: 10 }, (_, i) => createCustomer(em, model, `t${t}-${i}`, 2, 2));
            await em.flush();
            return customers.map(graphKeys);
          }),
        ),
      );
      const flat = batches.flat();
      const orders = flat.flatMap((k) => k.orders);
      expect(new Set(flat.flatMap((k) => k.customers)).size).toBe(40);
      expect(new Set(orders).size).toBe(80);
      expect(new Set(flat.flatMap((k) => k.items)).size).toBe(160);
    });

    it('should fill keys in em.insert() and em.insertMany() with plain rows', async () => {
      const em = orm.em.fork();
      const id = await em.insert(model.Customer as never, { name: 'plain' } as never);
      const ids = await em.insertMany(model.Customer as never, [{ name: 'p1' }, { name: 'p2' }] as never);
      expect(typeof id).toBe('number');
      expect(ids).toHaveLength(2);
      expect(new Set([id, ...ids]).size).toBe(3);
      const names = ((await em.find(model.Customer as never, { id: { $in: [id, ...ids] } } as never)) as CustomerLike[])
        .map((c) => c.name)
        .sort();
      expect(names).toEqual(['p1', 'p2', 'plain']);
      expect(log.statements.filter((s) => /\breturning\b/i.test(s))).toEqual([]);
    });

    it('should keep a key the caller set explicitly', async () => {
      const em = orm.em.fork();
      const customer: CustomerLike = em.create(model.Customer as never, { id: 9_000_001, name: 'explicit' } as never);
      expect(customer.id).toBe(9_000_001);
      await em.flush();
      expect(await count(em, 'customers')).toBeGreaterThan(0);
    });
  });
}
