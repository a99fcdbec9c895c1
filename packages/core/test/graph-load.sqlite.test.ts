// Issue 55 on SQLite: the same graph load through prepared multi-row INSERTs in one transaction, with both drivers
// (better-sqlite3 and node:sqlite); a refused row is named by trying its statement's rows one at a time.
import Database from 'better-sqlite3';
import { DatabaseSync } from 'node:sqlite';
import {
  HiLoGraphLoadError,
  createHiLoGenerator,
  memorySource,
  type GraphNode,
  type HiLoEvent,
  type HiLoGenerator,
} from 'hilo-core';
import { sqliteGraphTarget } from '../src/dialects/sqlite/graph-target.js';
import type { SqliteDatabaseLike } from '../src/dialects/sqlite/client.js';
import { loadGraph } from '../src/graph/load.js';
import { ORDER_TABLES as TABLES, ordersWithItems as orders } from './graph-load-fixtures.js';

const drivers: readonly [string, () => SqliteDatabaseLike & { exec(sql: string): unknown }][] = [
  ['better-sqlite3', () => new Database(':memory:')],
  ['node:sqlite', () => new DatabaseSync(':memory:')],
];

describe.each(drivers)('graph loads on SQLite (%s)', (_name, open) => {
  let db: SqliteDatabaseLike & { exec(sql: string): unknown };
  let generator: HiLoGenerator;
  let events: HiLoEvent[];
  const count = (table: string): number =>
    Number((db.prepare(`select count(*) as n from ${table}`).all()[0] as { n: number }).n);

  beforeEach(() => {
    db = open();
    db.exec('pragma foreign_keys = on');
    db.exec(`create table orders (id integer primary key, customer text not null, paid integer, meta text)`);
    db.exec(
      `create table items (id integer primary key, order_id integer not null references orders (id), sku text not null,
                           qty integer check (qty > 0))`,
    );
    events = [];
    generator = createHiLoGenerator({ source: memorySource(), blockSize: 100, onEvent: (e) => events.push(e) });
  });
  afterEach(async () => {
    await generator.close();
    db.close();
  });

  it('should load orders with their items, every item under its order, values bound as SQLite takes them', async () => {
    const result = await loadGraph({
      target: sqliteGraphTarget({ database: db }),
      generator,
      tables: TABLES,
      input: orders(60, 5),
      batchRows: 70,
    });
    expect(result).toEqual({ items: 60, rows: { orders: 60, items: 300 } });
    const wrong = db
      .prepare(
        `select count(*) as n from items i join orders o on o.id = i.order_id
          where substr(i.sku, 2, length(o.customer) - 1) <> substr(o.customer, 2)`,
      )
      .all();
    expect(wrong).toEqual([{ n: 0 }]);
    expect(db.prepare('select paid, meta from orders order by id limit 2').all()).toEqual([
      { paid: 1, meta: '{"tags":["a",0]}' },
      { paid: 0, meta: '{"tags":["a",1]}' },
    ]);
  });

  it.each([
    ['the first row', 0, 0],
    ['a middle row', 31, 2],
    ['the last row', 59, 4],
  ])('should roll everything back when %s is refused, naming its item and key', async (_where, o, i) => {
    const input = orders(60, 5, (oo, ii) => oo === o && ii === i);
    const error = await loadGraph({
      target: sqliteGraphTarget({ database: db }),
      generator,
      tables: TABLES,
      input,
      batchRows: 100,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'items', item: o, key: [...input[o]!.children!][i]!.row.id });
    expect((error as Error).message).toMatch(/SQLite said: .*CHECK constraint failed/);
    expect([count('orders'), count('items')]).toEqual([0, 0]);
    expect(events.some((e) => e.type === 'lost' && e.reason === 'discarded')).toBe(true);
  });

  it('should roll back when the input throws', async () => {
    async function* broken(): AsyncGenerator<GraphNode> {
      yield* orders(10, 2);
      throw new Error('the feed broke');
    }
    await expect(
      loadGraph({
        target: sqliteGraphTarget({ database: db }),
        generator,
        tables: TABLES,
        input: broken(),
        batchRows: 5,
      }),
    ).rejects.toMatchObject({
      item: 10,
      code: 'HILO_GRAPH_LOAD',
    });
    expect(count('orders')).toBe(0);
  });

  it('should run in a savepoint of the caller’s transaction, rolled back with it', async () => {
    db.exec('begin');
    await loadGraph({ target: sqliteGraphTarget({ database: db }), generator, tables: TABLES, input: orders(3, 2) });
    expect(count('items')).toBe(6);
    db.exec('rollback');
    expect(count('orders')).toBe(0);
  });

  it('should order a self-reference by nesting', async () => {
    db.exec(
      'create table categories (id integer primary key, parent_id integer references categories (id), name text)',
    );
    const tree = (name: string, depth: number): GraphNode => ({
      table: 'categories',
      row: { name },
      children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
    });
    await loadGraph({
      target: sqliteGraphTarget({ database: db }),
      generator,
      tables: [
        {
          table: 'categories',
          key: 'id',
          columns: ['name'],
          references: [{ column: 'parent_id', table: 'categories' }],
        },
      ],
      input: [tree('root', 3)],
      batchRows: 4,
    });
    expect(
      db
        .prepare(
          `select count(*) as n from categories c join categories p on p.id = c.parent_id where c.name like p.name || '.%'`,
        )
        .all(),
    ).toEqual([{ n: 14 }]);
  });
});
