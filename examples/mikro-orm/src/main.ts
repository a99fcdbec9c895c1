import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { HiLo } from 'hilo-mikro-orm';
import { Customer, IdentityCustomer, Order, OrderItem, entities } from './entities.js';

/**
 * The shop, end to end: keys known at em.create(), relations wired by key, a batch insert compared with
 * MikroORM's own autoincrement keys, and a rolled-back transaction whose keys stay unused for good.
 */
export async function run(
  url: string,
  log: (...args: unknown[]) => void = console.log,
): Promise<{ keysBeforeFlush: number; statements: number; identityStatements: number }> {
  const sql: string[] = [];
  const orm = await MikroORM.init({
    clientUrl: url,
    entities,
    // reserves a block per keyed table during init(), on a connection of its own; blocks of 200 cover the
    // batch below, so every key is known at em.create() (a key still missing is assigned at flush)
    extensions: [HiLo.configure({ blockSize: 200 })],
    debug: ['query'],
    logger: (message) => {
      const statement = /^\[query\] (.*?)(?: \[took .*)?$/s.exec(message)?.[1];
      if (statement) sql.push(statement);
    },
    colors: false,
  });
  try {
    await orm.schema.refresh();

    // 1. Keys at em.create(): the whole graph has its keys before a single statement is sent.
    const em = orm.em.fork();
    const ada = em.create(Customer, {
      email: 'ada@example.com',
      orders: [
        {
          placedAt: new Date(),
          items: [
            { sku: 'tea', quantity: 2 },
            { sku: 'cup', quantity: 1 },
          ],
        },
      ],
    });
    const order = ada.orders[0]!;
    const keysBeforeFlush = [ada, order, ...order.items].filter((e) => e.id !== undefined).length;
    log(`before flush: customer ${ada.id}, order ${order.id}, items ${order.items.map((i) => i.id).join(', ')}`);

    // 2. Relations wired by key: a reference is enough, no entity has to be loaded or flushed first.
    const reorder = em.create(Order, { customer: em.getReference(Customer, ada.id), placedAt: new Date() });
    em.create(OrderItem, { order: reorder, sku: 'tea', quantity: 5 });
    log(`order ${reorder.id} for customer ${ada.id}, ready to publish before it is stored`);
    await em.flush();

    // 3. A batch: 20 customers, each with 2 orders of 3 items, in one flush — all 180 keys known before it.
    let batchKeys = 0;
    const statements = await countStatements(sql, orm.em.fork(), (batch) => {
      batchKeys = createShop(batch, Customer);
    });
    const identityStatements = await countStatements(sql, orm.em.fork(), (batch) => {
      createShop(batch, IdentityCustomer);
    });
    log(
      `batch of 20 customers, 40 orders, 120 items: ${batchKeys} keys before flush; ${statements} ` +
        `statements with hi/lo keys, ${identityStatements} with autoincrement keys`,
    );

    // 4. A rolled-back transaction: its keys are burnt, never handed out again.
    let burnt = 0;
    await orm.em
      .fork()
      .transactional(async (tx) => {
        const customer = tx.create(Customer, { email: 'rollback@example.com' });
        burnt = customer.id;
        await tx.flush();
        throw new Error('payment declined');
      })
      .catch((error: Error) => log(`rolled back (${error.message}); key ${burnt} stays unused`));
    const next = orm.em.fork().create(Customer, { email: 'after@example.com' });
    log(`next customer key: ${next.id} (> ${burnt})`);

    return { keysBeforeFlush: keysBeforeFlush + batchKeys, statements, identityStatements };
  } finally {
    await orm.close();
  }
}

/** Creates 20 customers with 2 orders of 3 items each; returns how many of them have a key already. */
function createShop(em: EntityManager, entity: typeof Customer | typeof IdentityCustomer): number {
  let keyed = 0;
  for (let c = 0; c < 20; c++) {
    const customer = em.create(entity as typeof Customer, {
      email: `customer${c}@${entity === Customer ? 'hilo' : 'identity'}.example`,
      orders: Array.from({ length: 2 }, () => ({
        placedAt: new Date(),
        items: Array.from({ length: 3 }, (_, i) => ({ sku: `sku-${i}`, quantity: i + 1 })),
      })),
    });
    const graph = [
      customer,
      ...customer.orders,
      ...customer.orders.getItems().flatMap((order) => order.items.getItems()),
    ];
    keyed += graph.filter((e) => e.id !== undefined).length;
  }
  return keyed;
}

async function countStatements(sql: string[], em: EntityManager, build: (em: EntityManager) => void): Promise<number> {
  build(em);
  sql.length = 0;
  await em.flush();
  return sql.length;
}
