// Issue 55: a whole object graph loaded by binary COPY with its keys from hilo, on one connection in one transaction.
// Parents before children, a self-reference ordered by nesting, a cycle refused (or deferred), and any failure half-way
// rolls the whole load back, counts its keys as lost and names the table, the input item, the key and the server's words.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describePostgres, workerMapping } from '@hilo/testing';
import pg from 'pg';
import {
  HiLoConfigurationError,
  HiLoGraphLoadError,
  createHiLoGenerator,
  memorySource,
  type GraphNode,
  type GraphTable,
  type HiLoEvent,
  type HiLoGenerator,
} from 'hilo-core';
import { pgGraphTarget } from '../src/dialects/postgres/graph-target.js';
import { loadGraph } from '../src/graph/load.js';

const WORKER = fileURLToPath(new URL('./workers/graph-worker.ts', import.meta.url));

const TABLES: readonly GraphTable[] = [
  { table: 'orders', key: 'id', columns: ['customer', 'total'] },
  { table: 'items', key: 'id', columns: ['sku', 'qty'], references: [{ column: 'order_id', table: 'orders' }] },
];

/** `count` orders of `items` items each; `bad(o, i)` may replace an item's row. */
function orders(
  count: number,
  items: number,
  bad?: (o: number, i: number) => Record<string, unknown> | undefined,
): GraphNode[] {
  return Array.from({ length: count }, (_, o) => ({
    table: 'orders',
    row: { customer: `c${o}`, total: `${o}.50` },
    children: Array.from({ length: items }, (_, i) => ({
      table: 'items',
      row: bad?.(o, i) ?? { sku: `s${o}-${i}`, qty: i + 1 },
    })),
  }));
}

async function* streamed(nodes: Iterable<GraphNode>, throwAt?: number): AsyncGenerator<GraphNode> {
  let n = 0;
  for (const node of nodes) {
    if (n === throwAt) throw new Error('the feed broke');
    n += 1;
    yield node;
  }
}

/** Runs the graph worker in a process of its own. */
function runWorker(spec: Record<string, unknown>): Promise<{ code: number | null; output: string }> {
  const mapping = workerMapping();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...mapping.args, '--no-warnings', WORKER, JSON.stringify(spec)],
    {
      cwd: process.cwd(),
      env: { ...process.env, ...mapping.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

describePostgres('graph loads by binary COPY', (db) => {
  let pool: pg.Pool;
  let generator: HiLoGenerator;
  let events: HiLoEvent[];

  const count = async (table: string): Promise<number> =>
    Number((await pool.query<{ n: string }>(`select count(*) as n from ${table}`)).rows[0]!.n);

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    pool.on('error', () => undefined);
    await pool.query(`create table orders (id int8 primary key, customer text not null, total numeric(12,2))`);
    await pool.query(
      `create table items (id int8 primary key, order_id int8 not null references orders (id), sku text not null,
                           qty int4 check (qty > 0))`,
    );
    await pool.query(`create index on items (order_id)`);
  });
  beforeEach(async () => {
    await pool.query('truncate items, orders');
    events = [];
    generator = createHiLoGenerator({ source: memorySource(), blockSize: 100, onEvent: (event) => events.push(event) });
  });
  afterEach(async () => {
    await generator.close();
  });
  afterAll(async () => {
    await pool.end();
  });

  const lost = (): number =>
    events
      .filter((e) => e.type === 'lost' && e.reason === 'discarded')
      .reduce((sum, e) => sum + (e.type === 'lost' ? e.keys : 0), 0);

  it('should load orders with their items, every item wired to its order, keys written into the rows', async () => {
    const input = orders(30, 4);
    const result = await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: TABLES,
      input: streamed(input),
      batchRows: 17,
    });
    expect(result).toEqual({ items: 30, rows: { orders: 30, items: 120 } });
    const { rows } = await pool.query<{ customer: string; sku: string; order_id: string; id: string }>(
      `select o.customer, i.sku, i.order_id::text, i.id::text from items i join orders o on o.id = i.order_id order by i.id`,
    );
    expect(rows).toHaveLength(120);
    for (const row of rows) expect(row.sku.startsWith(`s${row.customer.slice(1)}-`)).toBe(true);
    // the keys the caller sees are the stored ones
    const first = input[0]!;
    const child = [...first.children!][0]!;
    expect(child.row.order_id).toBe(first.row.id);
    expect((await pool.query(`select sku from items where id = $1`, [child.row.id])).rows).toEqual([{ sku: 's0-0' }]);
    expect(lost()).toBe(0);
  });

  it('should load rows per table, parents written first whatever order the tables are listed in', async () => {
    const tables = [...TABLES].reverse();
    const input: GraphNode[] = [{ table: 'orders', row: { customer: 'a' } }];
    await loadGraph({ target: pgGraphTarget({ pool }), generator, tables, input });
    const orderId = input[0]!.row.id as number;
    await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables,
      input: [{ table: 'items', row: { sku: 'x', qty: 1, order_id: orderId } }],
    });
    expect(await count('items')).toBe(1);
  });

  it.each([
    ['the first row', 0, 0],
    ['a middle row', 12, 2],
    ['the last row', 29, 3],
  ])('should roll everything back on a bad value in %s, naming table, item, key and column', async (_where, o, i) => {
    const bad = (oo: number, ii: number) => (oo === o && ii === i ? { sku: 'bad', qty: 'lots' } : undefined);
    const input = orders(30, 4, bad);
    const error = await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: TABLES,
      input,
      batchRows: 25,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    const badRow = [...input[o]!.children!][i]!.row;
    expect(error).toMatchObject({
      table: 'items',
      item: o,
      key: badRow.id,
      column: 'qty',
      code: 'HILO_GRAPH_LOAD',
      retryable: false,
    });
    expect((error as Error).message).toContain('expected an integer from -2147483648 to 2147483647');
    expect(await count('orders')).toBe(0);
    expect(await count('items')).toBe(0);
    expect(lost()).toBeGreaterThan(0);
    const issued = Object.values(generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0);
    expect(lost()).toBe(issued);
  });

  it.each([
    ['the first row', 0],
    ['a middle row', 14],
    ['the last row', 29],
  ])(
    'should roll back when the server refuses %s (a check constraint), with its words and the row',
    async (_where, o) => {
      const input = orders(30, 2, (oo, ii) => (oo === o && ii === 1 ? { sku: 'neg', qty: -1 } : undefined));
      const error = await loadGraph({
        target: pgGraphTarget({ pool }),
        generator,
        tables: TABLES,
        input,
        batchRows: 20,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoGraphLoadError);
      const badRow = [...input[o]!.children!][1]!.row;
      expect(error).toMatchObject({ table: 'items', item: o, key: badRow.id });
      expect((error as Error).message).toMatch(/PostgreSQL said: .*violates check constraint/);
      expect(await count('orders')).toBe(0);
      expect(lost()).toBeGreaterThan(0);
    },
  );

  it('should roll back on a foreign-key violation, naming the row by the key the server reports', async () => {
    const input: GraphNode[] = [
      ...orders(5, 1),
      { table: 'items', row: { sku: 'orphan', qty: 1, order_id: 999_999_999 } },
      ...orders(5, 1),
    ];
    const error = await loadGraph({ target: pgGraphTarget({ pool }), generator, tables: TABLES, input }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ table: 'items', item: 5, key: input[5]!.row.id });
    expect((error as Error).message).toMatch(/violates foreign key constraint.*\(Key \(order_id\)=\(999999999\)/);
    expect(await count('orders')).toBe(0);
  });

  it('should roll back when the input throws half-way, naming the item it was reading', async () => {
    const error = await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: TABLES,
      input: streamed(orders(40, 2), 33),
      batchRows: 10,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ item: 33, cause: new Error('the feed broke') });
    expect(await count('orders')).toBe(0);
    expect(lost()).toBe(Object.values(generator.stats()).reduce((sum, s) => sum + s.keysIssued, 0));
  });

  it('should roll back when the connection is lost half-way, with a retryable error', async () => {
    const connection = await pool.connect();
    connection.on('error', () => undefined);
    const pid = (await connection.query<{ p: number }>('select pg_backend_pid() as p')).rows[0]!.p;
    async function* killing(): AsyncGenerator<GraphNode> {
      for (const [n, node] of orders(40, 2).entries()) {
        if (n === 30) await pool.query('select pg_terminate_backend($1)', [pid]);
        yield node;
      }
    }
    const error = await loadGraph({
      target: pgGraphTarget({ connection }),
      generator,
      tables: TABLES,
      input: killing(),
      batchRows: 10,
    }).catch((e: unknown) => e);
    connection.release(true);
    expect(error).toBeInstanceOf(HiLoGraphLoadError);
    expect(error).toMatchObject({ retryable: true });
    expect(await count('orders')).toBe(0);
    expect(lost()).toBeGreaterThan(0);
  });

  it('should run inside the caller’s transaction: rolled back with it, and a failed load leaves it usable', async () => {
    const connection = await pool.connect();
    try {
      await connection.query('begin');
      await connection.query(`insert into orders (id, customer) values (-1, 'before')`);
      const target = pgGraphTarget({ connection, inTransaction: true });
      await loadGraph({ target, generator, tables: TABLES, input: orders(3, 2) });
      expect(Number((await connection.query('select count(*) as n from items')).rows[0].n)).toBe(6);
      // a failing load rolls back to its savepoint: the caller's transaction and its earlier rows stay
      await expect(
        loadGraph({ target, generator, tables: TABLES, input: orders(2, 1, () => ({ sku: 's', qty: 0 })) }),
      ).rejects.toThrow(HiLoGraphLoadError);
      expect(Number((await connection.query('select count(*) as n from orders')).rows[0].n)).toBe(4);
      await connection.query('rollback');
    } finally {
      connection.release();
    }
    expect(await count('orders')).toBe(0);
    expect(await count('items')).toBe(0);
  });

  it('should order a self-reference by nesting: every category after its parent', async () => {
    await pool.query(
      `create table categories (id int8 primary key, parent_id int8 references categories (id), name text)`,
    );
    const tables: GraphTable[] = [
      { table: 'categories', key: 'id', columns: ['name'], references: [{ column: 'parent_id', table: 'categories' }] },
    ];
    const tree = (name: string, depth: number): GraphNode => ({
      table: 'categories',
      row: { name },
      children: depth === 0 ? [] : [tree(`${name}.a`, depth - 1), tree(`${name}.b`, depth - 1)],
    });
    await loadGraph({ target: pgGraphTarget({ pool }), generator, tables, input: [tree('root', 4)], batchRows: 7 });
    const { rows } = await pool.query<{ name: string; parent: string | null }>(
      `select c.name, p.name as parent from categories c left join categories p on p.id = c.parent_id order by c.name`,
    );
    expect(rows).toHaveLength(31);
    for (const row of rows)
      expect(row.parent).toBe(row.name === 'root' ? null : row.name.slice(0, row.name.lastIndexOf('.')));
  });

  it('should refuse a cycle of foreign keys naming them, and load it with the deferrable one deferred to the commit', async () => {
    await pool.query(`create table teams (id int8 primary key, captain_id int8, name text)`);
    await pool.query(
      `create table players (id int8 primary key, team_id int8 not null references teams (id), name text)`,
    );
    const tables = (deferrable: boolean): GraphTable[] => [
      {
        table: 'teams',
        key: 'id',
        columns: ['name'],
        references: [{ column: 'captain_id', table: 'players', deferrable }],
      },
      { table: 'players', key: 'id', columns: ['name'], references: [{ column: 'team_id', table: 'teams' }] },
    ];
    const error = await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: tables(false),
      input: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HiLoConfigurationError);
    expect((error as Error).message).toContain('teams.captain_id → players, players.team_id → teams form a cycle');

    await pool.query(
      `alter table teams add constraint captain foreign key (captain_id) references players (id) deferrable initially immediate`,
    );
    const player: GraphNode = { table: 'players', row: { name: 'ada' } };
    await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: tables(true),
      input: [{ table: 'teams', row: { name: 'red' }, children: [player] }],
    });
    // a wrong captain is found at the commit, and the load still rolls back
    const broken: GraphNode = { table: 'teams', row: { name: 'blue', captain_id: 424242 } };
    const late = await loadGraph({
      target: pgGraphTarget({ pool }),
      generator,
      tables: tables(true),
      input: [broken],
    }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(HiLoGraphLoadError);
    expect(late).toMatchObject({ table: 'teams' });
    expect((late as Error).message).toContain('captain');
    expect((await pool.query('select name from teams')).rows).toEqual([{ name: 'red' }]);
  });

  it('should give no key twice when two processes load at once', async () => {
    const spec = { url: db.url, orders: 300, items: 5, blockSize: 50, batchRows: 400 };
    const [a, b] = await Promise.all([runWorker(spec), runWorker(spec)]);
    expect([a.code, a.output.trim()]).toEqual([0, 'done 1800']);
    expect([b.code, b.output.trim()]).toEqual([0, 'done 1800']);
    expect(await count('orders')).toBe(600);
    expect(await count('items')).toBe(3000);
    // each process's items hang under its own orders
    const { rows } = await pool.query<{ n: string }>(
      `select count(*) as n from items i join orders o on o.id = i.order_id
        where split_part(i.sku, '-', 1) <> 'p' || substr(split_part(o.customer, '-', 1), 2)`,
    );
    expect(rows[0]!.n).toBe('0');
  });

  it('should refuse rows that bring their own key, and children with no reference to their parent', async () => {
    await expect(
      loadGraph({
        target: pgGraphTarget({ pool }),
        generator,
        tables: TABLES,
        input: [{ table: 'orders', row: { id: 5, customer: 'x' } }],
      }),
    ).rejects.toThrow(/already has id = 5; a graph load gives every row its key from hilo/);
    await expect(
      loadGraph({
        target: pgGraphTarget({ pool }),
        generator,
        tables: TABLES,
        input: [{ table: 'items', row: { sku: 'x', qty: 1 }, children: [{ table: 'orders', row: { customer: 'y' } }] }],
      }),
    ).rejects.toThrow(/no reference of "orders" names "items"/);
    expect(await count('orders')).toBe(0);
  });
});
