import { HiLoConfigurationError } from 'hilo-core';
import { buildMetadata, parseHiLoComment, renderMetadataModule } from '../src/index.js';
import type { DmmfModelLike } from '../src/generator/build-metadata.js';
import { hiloMetadata } from './generated/postgres/hilo.js';

const id = (type: string, extra: Partial<DmmfModelLike['fields'][number]> = {}) => ({
  name: 'id',
  kind: 'scalar',
  type,
  isId: true,
  ...extra,
});

describe('generator: @hilo comments', () => {
  it('should read segment and blockSize', () => {
    expect(parseHiLoComment('An order.\n@hilo(segment: "orders", blockSize: 500)', 'model Order')).toEqual({
      segment: 'orders',
      blockSize: 500,
    });
    expect(parseHiLoComment("@hilo(segment: 'x')", 'm')).toEqual({ segment: 'x' });
    expect(parseHiLoComment('@hilo', 'm')).toEqual({});
    expect(parseHiLoComment('no tag here', 'm')).toBeUndefined();
    expect(parseHiLoComment(undefined, 'm')).toBeUndefined();
  });

  it('should name the bad option and the fix', () => {
    expect(() => parseHiLoComment('@hilo(blockSize: 0)', 'model Order')).toThrow(
      /blockSize of model Order must be a positive integer, got 0/,
    );
    expect(() => parseHiLoComment('@hilo(segment: orders)', 'model Order')).toThrow(/quoted string.*segment: "orders"/);
    expect(() => parseHiLoComment('@hilo(size: 5)', 'model Order')).toThrow(
      /Unknown @hilo option "size".*segment and blockSize/,
    );
    expect(() => parseHiLoComment('@hilo(segment "x")', 'model Order')).toThrow(HiLoConfigurationError);
  });
});

describe('generator: metadata from the DMMF', () => {
  it('should describe tagged models, their key, segment and relations, and leave the others keyless', () => {
    const metadata = buildMetadata(
      [
        {
          name: 'Order',
          dbName: 'orders',
          documentation: '@hilo(blockSize: 50)',
          primaryKey: null,
          fields: [id('BigInt'), { name: 'items', kind: 'object', type: 'Item', isId: false }],
        },
        {
          name: 'Item',
          dbName: null,
          primaryKey: null,
          fields: [id('Int', { documentation: '@hilo(segment: "lines")', dbName: 'item_id' })],
        },
        {
          name: 'Tag',
          dbName: null,
          primaryKey: null,
          fields: [id('Int', { default: { name: 'autoincrement', args: [] } })],
        },
      ],
      'postgresql',
    );
    expect(metadata).toEqual({
      provider: 'postgresql',
      models: {
        Order: {
          table: 'orders',
          key: { field: 'id', type: 'BigInt', segment: 'orders', column: 'id', blockSize: 50 },
          relations: { items: 'Item' },
          graph: { columns: { id: 'id' }, relations: { items: {} } },
        },
        Item: {
          table: 'Item',
          key: { field: 'id', type: 'Int', segment: 'lines', column: 'item_id' },
          relations: {},
          graph: { columns: { id: 'item_id' }, relations: {} },
        },
        Tag: {
          table: 'Tag',
          relations: {},
          graph: { columns: { id: 'id' }, defaults: { id: 'database' }, relations: {} },
        },
      },
    });
    expect(renderMetadataModule(metadata)).toContain('export const hiloMetadata = {');
  });

  it("should carry a model's @@schema, where verified blocks look for its stored keys", () => {
    const metadata = buildMetadata(
      [
        {
          name: 'Order',
          dbName: 'orders',
          schema: 'shop',
          documentation: '@hilo',
          primaryKey: null,
          fields: [id('BigInt')],
        },
      ],
      'postgresql',
    );
    expect(metadata.models['Order']).toMatchObject({ table: 'orders', schema: 'shop' });
    expect(
      buildMetadata([{ name: 'Tag', dbName: null, schema: null, primaryKey: null, fields: [] }]).models['Tag'],
    ).toEqual({
      table: 'Tag',
      relations: {},
      graph: { columns: {}, relations: {} },
    });
  });

  it("should describe each model's columns, defaults and foreign keys for createGraph()", () => {
    const scalar = (name: string, more: Partial<DmmfModelLike['fields'][number]> = {}) => ({
      name,
      kind: 'scalar',
      type: 'String',
      isId: false,
      ...more,
    });
    const metadata = buildMetadata([
      {
        name: 'Order',
        dbName: 'orders',
        documentation: '@hilo',
        primaryKey: null,
        fields: [
          id('BigInt'),
          scalar('placedAt', { dbName: 'placed_at', hasDefaultValue: true, default: { name: 'now', args: [] } }),
          scalar('touchedAt', { isUpdatedAt: true }),
          scalar('status', { hasDefaultValue: true, default: 'open' }),
          scalar('token', { hasDefaultValue: true, default: { name: 'uuid', args: [4] } }),
          {
            name: 'lines',
            kind: 'object',
            type: 'Line',
            isId: false,
            relationName: 'OrderToLine',
            relationFromFields: [],
          },
          { name: 'labels', kind: 'object', type: 'Label', isId: false, relationName: 'LabelToOrder' },
        ],
      },
      {
        name: 'Line',
        dbName: null,
        primaryKey: null,
        fields: [
          id('BigInt'),
          scalar('orderId', { dbName: 'order_id', type: 'BigInt' }),
          {
            name: 'order',
            kind: 'object',
            type: 'Order',
            isId: false,
            relationName: 'OrderToLine',
            relationFromFields: ['orderId'],
            relationToFields: ['id'],
          },
        ],
      },
      {
        name: 'Label',
        dbName: null,
        primaryKey: null,
        fields: [
          id('Int'),
          { name: 'orders', kind: 'object', type: 'Order', isId: false, relationName: 'LabelToOrder' },
        ],
      },
    ]);
    expect(metadata.models['Order']!.graph).toEqual({
      columns: { id: 'id', placedAt: 'placed_at', touchedAt: 'touchedAt', status: 'status', token: 'token' },
      defaults: { placedAt: 'now', touchedAt: 'now', status: { value: 'open' }, token: 'prisma' },
      // the child holds the foreign key of `lines`; an implicit many-to-many has none on either side
      relations: { lines: { opposite: 'order' }, labels: {} },
    });
    expect(metadata.models['Line']!.graph).toEqual({
      columns: { id: 'id', orderId: 'order_id' },
      relations: { order: { fields: ['orderId'], references: ['id'] } },
    });
  });

  it('should refuse keys hilo cannot fill', () => {
    const model = (fields: DmmfModelLike['fields'], primaryKey: DmmfModelLike['primaryKey'] = null): DmmfModelLike => ({
      name: 'M',
      dbName: null,
      documentation: '@hilo',
      primaryKey,
      fields,
    });
    expect(() => buildMetadata([model([id('String')])])).toThrow(/`id` is String; make it Int or BigInt/);
    expect(() => buildMetadata([model([id('Int', { default: { name: 'autoincrement', args: [] } })])])).toThrow(
      /@default\(autoincrement\(\)\); replace it with @default\(dbgenerated\("hilo_missing_key\('M'\)"\)\)/,
    );
    expect(() =>
      buildMetadata([model([{ name: 'a', kind: 'scalar', type: 'Int', isId: false }], { fields: ['a', 'b'] })]),
    ).toThrow(/no single-field @id/);
  });

  it('should have written the test schema metadata during the build', () => {
    expect(hiloMetadata.models.OrderItem.key).toEqual({
      field: 'id',
      type: 'BigInt',
      segment: 'order_items',
      column: 'item_id',
      blockSize: 200,
    });
    expect(hiloMetadata.models.Profile.key.type).toBe('Int');
    expect('key' in hiloMetadata.models.Tag).toBe(false);
  });
});
