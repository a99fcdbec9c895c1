// Issue 55 for Kysely: hilo.loadGraph() on each database, shared by graph-load.{postgres,mysql,sqlite}.test.ts.
// Orders with their items and a tree of categories (a self-reference), keys written into the row objects and equal
// to the ids the database holds, each item's order_id its order's key; inside a Kysely transaction that is rolled
// back (no row left) or committed (the load's rows and the app's own insert both kept); a bad value half-way rolls
// the load back with a HiLoGraphLoadError naming the table, and inside a transaction leaves it usable (savepoint).
import type { Generated, Kysely } from 'kysely';
import {
  HiLoConfigurationError,
  HiLoGraphLoadError,
  type HiLoKysely,
  type HiLoKyselyGraphNode,
  type HiLoKyselyGraphOptions,
} from 'hilo-kysely';

/** The tables as Kysely sees them: keys (and the defaulted status) are optional on insert. */
export interface GraphDB {
  orders: { id: Generated<number>; customer: string; status: Generated<string> };
  order_items: { id: Generated<number>; order_id: number; sku: string; qty: number };
  categories: { id: Generated<number>; parent_id: number | null; name: string };
}

/** The same tables on every database: table-level foreign keys (MariaDB ignores inline ones), a CHECK on qty. */
export const GRAPH_DDL = [
  'drop table if exists order_items',
  'drop table if exists orders',
  'drop table if exists categories',
  "create table orders (id bigint primary key, customer varchar(20) not null, status varchar(10) not null default 'new')",
  `create table order_items (id bigint primary key, order_id bigint not null, sku varchar(20) not null,
     qty int check (qty > 0), foreign key (order_id) references orders (id))`,
  `create table categories (id bigint primary key, parent_id bigint, name varchar(40) not null,
     foreign key (parent_id) references categories (id))`,
];

/** An app on one database: Kysely with hilo's plugin, and what its graph loads need there (`pool`, `database`). */
export interface GraphApp {
  readonly db: Kysely<GraphDB>;
  readonly hilo: HiLoKysely;
  readonly driver: Pick<HiLoKyselyGraphOptions<GraphDB>, 'pool' | 'database'>;
  /**
   * SQLite: hilo's own connection cannot reserve a block while the load's transaction is open on the same file (the
   * load holds the write lock, or a snapshot older than the block's commit), so the keys are put in memory first.
   */
  readonly keysFirst?: boolean;
  close(): Promise<void>;
}

type Node = HiLoKyselyGraphNode<GraphDB>;

/** `count` orders with `items` items each; the item where `bad(o, i)` holds gets a quantity the CHECK refuses. */
export function orders(count: number, items: number, bad?: (o: number, i: number) => boolean): Node[] {
  return Array.from({ length: count }, (_, o) => ({
    table: 'orders',
    row: { customer: `c${o}` },
    children: Array.from({ length: items }, (_, i) => ({
      table: 'order_items',
      row: { sku: `s${o}-${i}`, qty: bad?.(o, i) === true ? -1 : i + 1 },
    })),
  }));
}

/** A category tree `depth` levels under `name`, two children each. */
function tree(name: string, depth: number): Node {
  return {
    table: 'categories',
    row: { name },
    children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
  };
}

/** Every row of the input, walked (the load has written each key into its row). */
function* rowsOf(nodes: Iterable<Node>, parent?: Node): Generator<{ node: Node; parent: Node | undefined }> {
  for (const node of nodes) {
    yield { node, parent };
    yield* rowsOf(node.children ?? [], node);
  }
}

const counts = async (db: Kysely<GraphDB>) =>
  Promise.all(
    (['orders', 'order_items', 'categories'] as const).map(async (t) =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ),
  );

export function graphLoadSuite(open: () => Promise<GraphApp>, runDdl: (statements: string[]) => Promise<void>): void {
  let app: GraphApp;
  beforeEach(async () => {
    await runDdl(GRAPH_DDL);
    app = await open();
    if (app.keysFirst === true)
      await Promise.all([
        app.hilo.ensure('orders', 80),
        app.hilo.ensure('order_items', 200),
        app.hilo.ensure('categories', 20),
      ]);
  });
  afterEach(async () => {
    await app.close();
  });

  it('should load orders with items and a category tree, keys in the rows equal to the stored ids', async () => {
    const { db, hilo, driver } = app;
    const input = orders(30, 3);
    const result = await hilo.loadGraph(db, { ...driver, tables: ['orders', 'order_items'], input, batchRows: 20 });
    expect(result).toEqual({ items: 30, rows: { orders: 30, order_items: 90 } });
    const stored = db.selectFrom('order_items').innerJoin('orders', 'orders.id', 'order_items.order_id');
    const rows = await stored.select(['order_items.id', 'order_id', 'sku', 'customer', 'status']).execute();
    const bySku = new Map(rows.map((r) => [r.sku, r]));
    for (const { node, parent } of rowsOf(input)) {
      if (node.table !== 'order_items') continue;
      const row = bySku.get(node.row.sku!)!;
      // the key hilo wrote into the row object is the row's id, and its order_id its order's key
      expect([Number(row.id), Number(row.order_id)]).toEqual([Number(node.row.id), Number(parent!.row.id)]);
      expect([row.customer, row.status]).toEqual([(parent!.row as { customer: string }).customer, 'new']);
    }

    const categories = [tree('root', 3)];
    // the self-reference given instead of read from the catalog
    const references = [{ column: 'parent_id', table: 'categories' }];
    await hilo.loadGraph(db, { ...driver, tables: { categories: { references } }, input: categories, batchRows: 4 });
    const linked = await db
      .selectFrom('categories as c')
      .innerJoin('categories as p', 'p.id', 'c.parent_id')
      .select(['c.id', 'c.name', 'p.name as parent'])
      .execute();
    expect(linked).toHaveLength(14);
    expect(linked.every((r) => r.name.startsWith(`${r.parent}.`))).toBe(true);
    const byName = new Map(linked.map((r) => [r.name, Number(r.id)]));
    for (const { node } of rowsOf(categories)) {
      if (node.table === 'categories' && node.row.name !== 'root')
        expect(byName.get(node.row.name!)).toBe(Number(node.row.id));
    }
  });

  it('should run in a savepoint of a Kysely transaction: rolled back with it, or committed with the app’s rows', async () => {
    const { db, hilo, driver } = app;
    await hilo.ensure('orders', 10);
    const rollback = db.transaction().execute(async (trx) => {
      await hilo.loadGraph(trx, { ...driver, tables: ['orders', 'order_items'], input: orders(3, 2) });
      expect(await counts(trx)).toEqual([3, 6, 0]);
      throw new Error('the app rolls back');
    });
    await expect(rollback).rejects.toThrow('the app rolls back');
    expect(await counts(db)).toEqual([0, 0, 0]);

    await db.transaction().execute(async (trx) => {
      await hilo.insert(trx.insertInto('orders').values({ customer: 'app' }));
      await hilo.loadGraph(trx, { ...driver, tables: ['orders', 'order_items'], input: orders(3, 2) });
    });
    expect(await counts(db)).toEqual([4, 6, 0]);
  });

  it('should roll a failing load back with a HiLoGraphLoadError naming the table, leaving a transaction usable', async () => {
    const { db, hilo, driver } = app;
    const input = orders(20, 3, (o, i) => o === 11 && i === 1);
    const error = await hilo
      .loadGraph(db, { ...driver, tables: ['orders', 'order_items'], input, batchRows: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'order_items', item: 11 });
    expect(await counts(db)).toEqual([0, 0, 0]);

    await db.transaction().execute(async (trx) => {
      await hilo.insert(trx.insertInto('orders').values({ customer: 'app' }));
      const failed = hilo.loadGraph(trx, {
        ...driver,
        tables: ['orders', 'order_items'],
        input: orders(3, 2, () => true),
      });
      await expect(failed).rejects.toMatchObject({ table: 'order_items' });
      // the savepoint was rolled back, not the transaction: the app's row stays, and the transaction goes on
      await hilo.insert(trx.insertInto('orders').values({ customer: 'app 2' }));
    });
    expect(await counts(db)).toEqual([2, 0, 0]);
  });

  it('should write a column with a default only when listed, and refuse a row that sets it otherwise', async () => {
    const { db, hilo, driver } = app;
    const input: Node[] = [{ table: 'orders', row: { customer: 'x', status: 'paid' } }];
    const refused = hilo.loadGraph(db, { ...driver, tables: ['orders'], input });
    await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(refused).rejects.toThrow(/"status".*columns: \[\.\.\., 'status'\]/);
    await hilo.loadGraph(db, { ...driver, tables: { orders: { columns: ['customer', 'status'] } }, input });
    const stored = await db.selectFrom('orders').select(['id', 'status']).executeTakeFirstOrThrow();
    expect([Number(stored.id), stored.status]).toEqual([Number(input[0]!.row.id), 'paid']);
  });

  it('should refuse a table not registered with hiloKysely()', async () => {
    const { db, hilo, driver } = app;
    const refused = hilo.loadGraph(db, { ...driver, tables: ['nowhere' as 'orders'], input: [] });
    await expect(refused).rejects.toThrow(/"nowhere" is not registered/);
  });
}
