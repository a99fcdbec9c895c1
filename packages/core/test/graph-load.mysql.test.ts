// Issue 55 on MariaDB: the graph load through multi-row INSERTs (sized to the server's max_allowed_packet) in one
// transaction, with mysql2; a refused row is named by trying its statement's rows one at a time in a savepoint, a
// cycle of references is refused before anything is written (MariaDB defers no foreign key).
import mysql from 'mysql2/promise';
import { describeMysql } from '@hilo/testing';
import {
  HiLoConfigurationError,
  HiLoGraphLoadError,
  createHiLoGenerator,
  memorySource,
  type GraphNode,
  type HiLoEvent,
  type HiLoGenerator,
} from 'hilo-core';
import { mysqlGraphTarget } from '../src/dialects/mysql/graph-target.js';
import { loadGraph } from '../src/graph/load.js';
import { ORDER_TABLES as TABLES, ordersWithItems as orders } from './graph-load-fixtures.js';

describeMysql('graph loads on MariaDB (mysql2)', (db) => {
  let pool: mysql.Pool;
  let generator: HiLoGenerator;
  let events: HiLoEvent[];
  const count = async (table: string): Promise<number> => {
    const [rows] = await pool.query(`select count(*) as n from ${table}`);
    return Number((rows as { n: number }[])[0]!.n);
  };

  beforeAll(() => {
    pool = mysql.createPool({ uri: db.url, connectionLimit: 3 });
  });
  afterAll(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    await pool.query('drop table if exists items, orders, g_categories, g_a, g_b');
    await pool.query(
      'create table orders (id bigint primary key, customer varchar(20) not null, paid boolean, meta json)',
    );
    await pool.query(
      `create table items (id bigint primary key, order_id bigint not null references orders (id),
                             sku varchar(20) not null, qty int check (qty > 0))`,
    );
    events = [];
    generator = createHiLoGenerator({ source: memorySource(), blockSize: 100, onEvent: (e) => events.push(e) });
  });
  afterEach(async () => {
    await generator.close();
  });

  it('should load orders with their items, every item under its order, in statements the packet limit allows', async () => {
    const result = await loadGraph({
      target: mysqlGraphTarget({ pool }),
      generator,
      tables: TABLES,
      input: orders(60, 5),
      batchRows: 70,
    });
    expect(result).toEqual({ items: 60, rows: { orders: 60, items: 300 } });
    const [wrong] = await pool.query(
      `select count(*) as n from items i join orders o on o.id = i.order_id
        where substr(i.sku, 2, char_length(o.customer) - 1) <> substr(o.customer, 2)`,
    );
    expect(Number((wrong as { n: number }[])[0]!.n)).toBe(0);
    const [first] = await pool.query('select paid, meta from orders order by id limit 2');
    expect((first as { paid: number; meta: unknown }[]).map((r) => [r.paid, r.meta])).toEqual([
      [1, { tags: ['a', 0] }],
      [0, { tags: ['a', 1] }],
    ]);
  });

  it('should split a batch into several INSERTs when its text would pass half of max_allowed_packet', async () => {
    const seen: string[] = [];
    const watched = {
      getConnection: async () => {
        const connection = await pool.getConnection();
        return {
          query: (sql: string, values?: unknown[]) => {
            seen.push(sql);
            return connection.query(sql, values) as Promise<[unknown, unknown]>;
          },
          release: () => connection.release(),
          destroy: () => connection.destroy(),
        };
      },
    };
    const [packet] = await pool.query('select @@max_allowed_packet as m');
    const limit = Number((packet as { m: number }[])[0]!.m);
    // about a tenth of the packet limit per order: half the limit holds five of them at most
    await pool.query('alter table orders modify customer longtext not null');
    const big = 'x'.repeat(Math.ceil(limit / 20));
    const input = Array.from({ length: 12 }, (_, o) => ({ table: 'orders', row: { customer: `${o}${big}` } }));
    await loadGraph({
      target: mysqlGraphTarget({ pool: watched }),
      generator,
      tables: [TABLES[0]!],
      input,
    });
    expect(await count('orders')).toBe(12);
    const inserts = seen.filter((sql) => sql.startsWith('insert into'));
    expect(inserts.length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['the first row', 0, 0],
    ['a middle row', 31, 2],
    ['the last row', 59, 4],
  ])('should roll everything back when %s is refused, naming its item and key', async (_where, o, i) => {
    const input = orders(60, 5, (oo, ii) => oo === o && ii === i);
    const error = await loadGraph({
      target: mysqlGraphTarget({ pool }),
      generator,
      tables: TABLES,
      input,
      batchRows: 100,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ table: 'items', item: o, key: [...input[o]!.children!][i]!.row.id });
    expect((error as Error).message).toMatch(/MariaDB said: .*CONSTRAINT/i);
    expect([await count('orders'), await count('items')]).toEqual([0, 0]);
    expect(events.some((e) => e.type === 'lost' && e.reason === 'discarded')).toBe(true);
  });

  it('should roll back when the input throws', async () => {
    async function* broken(): AsyncGenerator<GraphNode> {
      yield* orders(10, 2);
      throw new Error('the feed broke');
    }
    await expect(
      loadGraph({ target: mysqlGraphTarget({ pool }), generator, tables: TABLES, input: broken(), batchRows: 5 }),
    ).rejects.toMatchObject({ item: 10, code: 'HILO_GRAPH_LOAD' });
    expect(await count('orders')).toBe(0);
  });

  it('should run in a savepoint of the caller’s transaction, rolled back with it', async () => {
    const connection = await pool.getConnection();
    try {
      await connection.query('begin');
      await loadGraph({
        target: mysqlGraphTarget({ connection, inTransaction: true }),
        generator,
        tables: TABLES,
        input: orders(3, 2),
      });
      const [inside] = await connection.query('select count(*) as n from items');
      expect(Number((inside as { n: number }[])[0]!.n)).toBe(6);
      await connection.query('rollback');
    } finally {
      connection.release();
    }
    expect(await count('orders')).toBe(0);
  });

  it('should order a self-reference by nesting, and refuse a cycle between tables before writing', async () => {
    await pool.query(
      'create table g_categories (id bigint primary key, parent_id bigint references g_categories (id), name varchar(40))',
    );
    const tree = (name: string, depth: number): GraphNode => ({
      table: 'g_categories',
      row: { name },
      children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
    });
    await loadGraph({
      target: mysqlGraphTarget({ pool }),
      generator,
      tables: [
        {
          table: 'g_categories',
          key: 'id',
          columns: ['name'],
          references: [{ column: 'parent_id', table: 'g_categories' }],
        },
      ],
      input: [tree('root', 3)],
      batchRows: 4,
    });
    const [linked] = await pool.query(
      `select count(*) as n from g_categories c join g_categories p on p.id = c.parent_id
        where c.name like concat(p.name, '.%')`,
    );
    expect(Number((linked as { n: number }[])[0]!.n)).toBe(14);

    await pool.query('create table g_a (id bigint primary key, b_id bigint)');
    await pool.query('create table g_b (id bigint primary key, a_id bigint)');
    const cycle = loadGraph({
      target: mysqlGraphTarget({ pool }),
      generator,
      tables: [
        { table: 'g_a', key: 'id', columns: [], references: [{ column: 'b_id', table: 'g_b', deferrable: true }] },
        { table: 'g_b', key: 'id', columns: [], references: [{ column: 'a_id', table: 'g_a' }] },
      ],
      input: [{ table: 'g_a', row: {} }],
    });
    await expect(cycle).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(cycle).rejects.toThrow(/MariaDB/);
  });
});
