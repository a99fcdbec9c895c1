import pg from 'pg';
import { Kysely, PostgresDialect, type Generated } from 'kysely';
import { hiloKysely, type HiLoKyselyGraphNode } from 'hilo-kysely';

/** The shop's tables; `id` is optional on insert: hilo's plugin (or the identity column) fills it. */
export interface ShopDatabase {
  customers: { id: Generated<number>; name: string; email: string };
  orders: { id: Generated<number>; customer_id: number };
  order_items: { id: Generated<number>; order_id: number; sku: string; quantity: number; price_cents: number };
  identity_orders: { id: Generated<number>; customer_id: number };
  identity_order_items: { id: Generated<number>; order_id: number; sku: string; quantity: number; price_cents: number };
  // keyed by UUIDv7s the application generates (the `uuid` package), for comparison in `pnpm bench`
  uuid_orders: { id: string; customer_id: number };
  uuid_order_items: { id: string; order_id: string; sku: string; quantity: number; price_cents: number };
}

const DDL = [
  'create table customers (id bigint primary key, name text not null, email text not null)',
  'create table orders (id bigint primary key, customer_id bigint not null references customers(id))',
  'create table order_items (id bigint primary key, order_id bigint not null references orders(id), ' +
    'sku text not null, quantity integer not null, price_cents integer not null)',
  'create table identity_orders (id bigserial primary key, customer_id bigint not null references customers(id))',
  'create table identity_order_items (id bigserial primary key, order_id bigint not null references ' +
    'identity_orders(id), sku text not null, quantity integer not null, price_cents integer not ' +
    'null)',
  'create table uuid_orders (id uuid primary key, customer_id bigint not null references customers(id))',
  'create table uuid_order_items (id uuid primary key, order_id uuid not null references uuid_orders(id), ' +
    'sku text not null, quantity integer not null, price_cents integer not null)',
];

const catalog = [
  { sku: 'TEA-GREEN', price_cents: 450 },
  { sku: 'TEA-BLACK', price_cents: 390 },
  { sku: 'MUG', price_cents: 1200 },
];
const people = [
  { name: 'Ada Lovelace', email: 'ada@example.com' },
  { name: 'Grace Hopper', email: 'grace@example.com' },
  { name: 'Edsger Dijkstra', email: 'edsger@example.com' },
];

/** Opens Kysely with hilo's plugin on `url`, creating the shop's tables. */
export async function openShop(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // an idle connection the server closes (a restart, a failover) must not crash the app: the next query reconnects
  pool.on('error', () => undefined);
  for (const sql of DDL) await pool.query(sql);
  // hilo's own connection: reservations commit there, never in the app's transactions
  const hilo = hiloKysely({ url, blockSize: 100, tables: { customers: true, orders: true, order_items: true } });
  const counter = { count: 0 };
  const db = new Kysely<ShopDatabase>({
    dialect: new PostgresDialect({ pool }),
    plugins: [hilo.plugin],
    log: (event) => void (event.level === 'query' && counter.count++),
  });
  await hilo.warm();
  return {
    db,
    hilo,
    pool,
    counter,
    async close() {
      try {
        await hilo.close();
      } finally {
        await db.destroy();
      }
    },
  };
}

/**
 * Runs the shop on the PostgreSQL database at `url`: keys known before the insert, orders wired to
 * customers by key, one multi-row INSERT per table, a rolled-back transaction; then the same batch with
 * identity keys (`RETURNING id` first, then the items); then orders with their items by a graph load.
 */
export async function run(url: string, log: (line: string) => void = console.log) {
  const { db, hilo, pool, counter, close } = await openShop(url);
  const id = async (table: string) => (await hilo.nextId(table)) as number;
  try {
    // 1. Keys before the insert (from memory after warm()).
    const shoppers = await Promise.all(people.map(async (p) => ({ id: await id('customers'), ...p })));
    const basket = await Promise.all(
      shoppers.flatMap((customer, n) =>
        [0, 1].map(async (k) => ({ id: await id('orders'), customer_id: customer.id, k: n + k })),
      ),
    );
    const lines = await Promise.all(
      basket.flatMap((order) =>
        catalog.slice(0, 2 + (order.k % 2)).map(async (product, i) => ({
          id: await id('order_items'),
          order_id: order.id,
          ...product,
          quantity: 1 + i,
        })),
      ),
    );
    const keysBeforeFlush = shoppers.length + basket.length + lines.length;
    log(
      `${keysBeforeFlush} keys known before anything was inserted, e.g. order ${basket[0]!.id} of customer ${basket[0]!.customer_id}`,
    );

    // 2. One transaction, one multi-row INSERT per table, no RETURNING.
    const before = counter.count;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('customers').values(shoppers).execute();
      await trx
        .insertInto('orders')
        .values(basket.map(({ k: _, ...o }) => o))
        .execute();
      await trx.insertInto('order_items').values(lines).execute();
    });
    const statements = counter.count - before; // BEGIN and COMMIT included
    log(
      `inserted ${shoppers.length} customers, ${basket.length} orders and ${lines.length} items in ${statements} statements`,
    );

    // 3. A rolled-back transaction: the plugin fills the key, which is gone for good afterwards.
    let abandoned = 0;
    await db
      .transaction()
      .execute(async (trx) => {
        const [row] = await trx.insertInto('orders').values({ customer_id: shoppers[0]!.id }).returning('id').execute();
        abandoned = Number(row!.id);
        throw new Error('payment declined');
      })
      .catch((error: Error) => log(`transaction rolled back (${error.message}); order key ${abandoned} stays unused`));
    const next = await id('orders');
    const carry = await db.selectFrom('orders').select('id').where('id', '=', abandoned).execute();
    log(`the next order gets key ${next}, not ${abandoned}; ${carry.length} rows carry ${abandoned}`);

    // 4. The same batch with identity keys: orders first, RETURNING their keys, then the items.
    const beforeIdentity = counter.count;
    await db.transaction().execute(async (trx) => {
      const saved = await trx
        .insertInto('identity_orders')
        .values(basket.map((o) => ({ customer_id: o.customer_id })))
        .returning('id')
        .execute();
      await trx
        .insertInto('identity_order_items')
        .values(
          saved.flatMap((order, n) =>
            catalog
              .slice(0, 2 + (basket[n]!.k % 2))
              .map((product, i) => ({ order_id: Number(order.id), ...product, quantity: 1 + i })),
          ),
        )
        .execute();
    });
    const identityStatements = counter.count - beforeIdentity + 1; // + the customers insert it also needs
    log(`identity keys: the same batch took ${identityStatements} statements, and no key was known before inserting`);
    // 5. A graph load: orders with their items in bulk (binary COPY through the app's pool), keys assigned up front,
    // each written into its row object, inside the app's transaction (a savepoint of it).
    const graph: HiLoKyselyGraphNode<ShopDatabase>[] = shoppers.map((customer) => ({
      table: 'orders',
      row: { customer_id: customer.id },
      children: catalog.map((product) => ({ table: 'order_items', row: { ...product, quantity: 2 } })),
    }));
    const loaded = await db
      .transaction()
      .execute((trx) => hilo.loadGraph(trx, { pool, tables: ['orders', 'order_items'], input: graph }));
    log(
      `graph load: ${loaded.rows.orders} orders with ${loaded.rows.order_items} items by COPY in the app's ` +
        `transaction, e.g. order ${graph[0]!.row.id} of customer ${shoppers[0]!.id}`,
    );
    const reservations = Object.values((await hilo.generator()).stats()).reduce((sum, s) => sum + s.reservations, 0);
    log(`hilo reserved blocks ${reservations} times, on a connection of its own`);
    return { keysBeforeFlush, statements, identityStatements, graphRows: loaded.rows };
  } finally {
    await close();
  }
}
