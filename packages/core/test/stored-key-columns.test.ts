// Issue 46: one key column takes keys from one segment. Two segments each count from their own hi store, so two
// segments storing into one column hand out the same keys; core refuses that wherever the columns are known
// (sqlStoredKeys, and so createHiLo, every adapter and the CLI), while one segment named twice stays allowed.
import { HiLoConfigurationError, connect, createHiLo, sqlStoredKeys, type SqlClient } from 'hilo-core';
import { adapterStoredKeys, checkOneSegmentPerColumn } from 'hilo-core/adapter-kit';

let client: SqlClient;
beforeAll(async () => {
  client = await connect('sqlite::memory:');
});
afterAll(async () => client.close());

describe('one segment per key column', () => {
  it('createHiLo refuses two segments storing their keys in one column, naming both, the column and the fix', () => {
    const build = () =>
      createHiLo({
        client,
        storedKeys: [
          { segment: 'orders', table: 'orders', column: 'id' },
          { segment: 'orders_v2', table: 'orders', column: 'id' },
        ],
      });
    expect(build).toThrow(HiLoConfigurationError);
    expect(build).toThrow(
      /Segments "orders" and "orders_v2" both store their keys in orders\.id;.*Give each key column one segment/,
    );
  });

  it('an adapter mapping two entities of one table to two segments is refused; to one segment (STI) it is fine', () => {
    const sti = [
      { segment: 'animals', table: 'animals', column: 'id' },
      { segment: 'animals', table: 'animals', column: 'id' },
    ];
    expect(adapterStoredKeys(client, {}, sti, 'test')).toBeDefined();
    expect(() =>
      adapterStoredKeys(client, {}, [...sti, { segment: 'cats', table: 'animals', column: 'id' }], 'test'),
    ).toThrow(/Segments "animals" and "cats" both store their keys in animals\.id/);
    // one segment over several tables (table per class) and two segments over two columns stay allowed
    expect(() =>
      sqlStoredKeys(client, [
        { segment: 'animals', table: 'cats', column: 'id' },
        { segment: 'animals', table: 'dogs', column: 'id' },
        { segment: 'tags', table: 'cats', column: 'tag_id' },
      ]),
    ).not.toThrow();
  });

  it('names compare as the database resolves them: case-blind on MariaDB/MySQL and SQLite, exact on PostgreSQL', () => {
    const columns = [
      { segment: 'a', table: 'Orders', column: 'ID' },
      { segment: 'b', table: 'orders', column: 'id' },
    ];
    expect(() => checkOneSegmentPerColumn(columns, 'mysql')).toThrow(HiLoConfigurationError);
    expect(() => checkOneSegmentPerColumn(columns, 'sqlite')).toThrow(HiLoConfigurationError);
    expect(() => checkOneSegmentPerColumn(columns)).toThrow(HiLoConfigurationError);
    expect(() => checkOneSegmentPerColumn(columns, 'postgres')).not.toThrow();
    // the same table in two schemas is two tables
    expect(() =>
      checkOneSegmentPerColumn(
        [
          { segment: 'a', table: 'orders', column: 'id', schema: 'shop' },
          { segment: 'b', table: 'orders', column: 'id', schema: 'archive' },
        ],
        'postgres',
      ),
    ).not.toThrow();
  });
});
