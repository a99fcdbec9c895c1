// Issue 55, item 4: a graph load's tables described from the catalog for adapters that know only a table's key
// (describeGraphTables, hilo-core/adapter-kit): columns without a default, one-column foreign keys to tables of the
// load (a composite one and one to a table outside the load left out), a missing table refused; and the input
// checked against those columns (checkedGraphInput). PostgreSQL's and MariaDB's catalogs run in hilo-kysely's
// graph-load suites.
import Database from 'better-sqlite3';
import { HiLoConfigurationError, sqliteClient, type GraphNode } from 'hilo-core';
import { checkedGraphInput, describeGraphTables } from 'hilo-core/adapter-kit';

describe('graph tables from the SQLite catalog', () => {
  const db = new Database(':memory:');
  const executor = sqliteClient(db);
  beforeAll(() => {
    db.exec(`
      create table customers (id integer primary key, name text);
      create table orders (id bigint primary key, customer_id bigint references customers (id), note text,
        status text not null default 'new', total real generated always as (1.0) virtual);
      create table items (id bigint primary key, order_id bigint not null references orders (id), a int, b int,
        sku text, foreign key (a, b) references orders (id, note));
      create table tree (id bigint primary key, parent_id bigint references tree (id), name text)`);
  });
  afterAll(() => db.close());

  it('should read columns without a default and the foreign keys to tables of the load', async () => {
    const [orders, items, tree] = await describeGraphTables(executor, 'sqlite', [
      { table: 'orders', key: 'id' },
      { table: 'items', key: 'id', segment: 'lines' },
      { table: 'tree', key: 'id' },
    ]);
    expect(orders).toEqual({
      table: 'orders',
      key: 'id',
      columns: ['customer_id', 'note'],
      references: [],
      unwritten: ['status', 'total'],
    });
    expect(items).toMatchObject({
      segment: 'lines',
      columns: ['a', 'b', 'sku'],
      references: [{ column: 'order_id', table: 'orders', deferrable: false }],
      unwritten: [],
    });
    expect(tree!.references).toEqual([{ column: 'parent_id', table: 'tree', deferrable: false }]);
  });

  it('should keep given columns and references, and refuse a missing table', async () => {
    const [orders] = await describeGraphTables(executor, 'sqlite', [
      { table: 'orders', key: 'id', columns: ['status'], references: [] },
    ]);
    expect(orders).toMatchObject({ columns: ['status'], references: [], unwritten: ['customer_id', 'note', 'total'] });
    await expect(describeGraphTables(executor, 'sqlite', [{ table: 'nowhere', key: 'id' }])).rejects.toThrow(
      /nowhere was not found in SQLite/,
    );
  });

  it('should rename the input’s tables and refuse a row that sets a column the load leaves out', async () => {
    const tables = await describeGraphTables(executor, 'sqlite', [{ table: 'orders', key: 'id' }]);
    const names = new Map([['main.orders', 'orders']]);
    const read = async (input: GraphNode[]) => {
      const out: GraphNode[] = [];
      for await (const node of checkedGraphInput(input, tables, names)) out.push({ ...node, row: node.row });
      return out;
    };
    const row = { note: 'x' };
    expect(await read([{ table: 'main.orders', row }])).toEqual([{ table: 'orders', row }]);
    const refused = read([{ table: 'main.orders', row: { note: 'x', status: 'paid' } }]);
    await expect(refused).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(refused).rejects.toThrow(/"main.orders" .* sets "status".*has a default/);
    await expect(read([{ table: 'main.orders', row: { nope: 1 } }])).rejects.toThrow(/no such column/);
  });
});
