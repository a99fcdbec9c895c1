import 'reflect-metadata';
import fc from 'fast-check';
import { Column, DataSource, Entity, JoinColumn, OneToOne, PrimaryColumn, type EntityMetadata } from 'typeorm';
import { EntityMetadata as EntityMetadataClass } from 'typeorm/metadata/EntityMetadata.js';
import { installDirectIdMaps, removeDirectIdMaps } from '../src/typeorm-internals.js';

// The direct id map must give exactly TypeORM's answer. TypeORM's own method is kept here before the patch,
// and both are asked about real entities of real metadata: plain keys of every type, and every shape the
// direct path leaves to TypeORM (composite, embedded and relation keys, null, Date, Buffer).

@Entity('id_numbered')
class Numbered {
  @PrimaryColumn({ type: 'integer' }) id!: unknown;
  @Column({ type: 'varchar', nullable: true }) note?: string;
}

@Entity('id_lettered')
class Lettered {
  @PrimaryColumn({ type: 'varchar' }) code!: unknown;
}

@Entity('id_paired')
class Paired {
  @PrimaryColumn({ type: 'integer' }) a!: unknown;
  @PrimaryColumn({ type: 'integer' }) b!: unknown;
}

class Inner {
  @PrimaryColumn({ type: 'integer' }) part!: unknown;
}

@Entity('id_embedded')
class Embedding {
  @Column(() => Inner) inner!: unknown;
}

@Entity('id_owned')
class Owned {
  @PrimaryColumn({ type: 'integer' }) ownerId!: unknown;
  @OneToOne(() => Numbered)
  @JoinColumn({ name: 'ownerId' })
  owner!: unknown;
}

type GetIdMap = (this: EntityMetadata, entity: unknown) => unknown;
const prototype = EntityMetadataClass.prototype as unknown as { getEntityIdMap: GetIdMap };
const general = prototype.getEntityIdMap;
const idMap = (metadata: EntityMetadata, entity: unknown) =>
  (metadata as unknown as { getEntityIdMap(entity: unknown): unknown }).getEntityIdMap(entity);
const entities = [Numbered, Lettered, Paired, Embedding, Owned];
const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities });
const outside = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities });

beforeAll(async () => {
  await dataSource.initialize();
  await outside.initialize();
  // as installHiLo() does: the direct path serves this DataSource's metadata objects only
  expect(installDirectIdMaps(dataSource.entityMetadatas)).toBeUndefined();
  expect(prototype.getEntityIdMap).toBe(general);
  expect(Object.hasOwn(dataSource.getMetadata(Numbered), 'getEntityIdMap')).toBe(true);
});
afterAll(async () => {
  await dataSource.destroy();
  await outside.destroy();
});

/** A key value of any kind TypeORM may meet in an id column. */
const valueArb = fc.oneof(
  fc.integer(),
  fc.constant(Number.NaN),
  fc.bigInt(),
  fc.string({ maxLength: 4 }),
  fc.constantFrom(null, undefined, 0, '', -0),
  fc.date({ noInvalidDate: true }),
  fc.constant(Buffer.from([1, 2])),
  fc.constant({ id: 7 }),
);

function build(target: (typeof entities)[number], value: unknown, other: unknown, missing: boolean): object {
  const entity = new target() as unknown as Record<string, unknown>;
  if (missing) return entity;
  if (target === Numbered) entity.id = value;
  else if (target === Lettered) entity.code = value;
  else if (target === Paired) Object.assign(entity, { a: value, b: other });
  else if (target === Embedding) entity.inner = Object.assign(new Inner(), { part: value });
  else
    Object.assign(entity, {
      ownerId: value,
      owner: other === undefined ? undefined : Object.assign(new Numbered(), { id: other }),
    });
  return entity;
}

describe('direct id maps', () => {
  it('answer exactly as TypeORM does, for every key shape and value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...entities), valueArb, valueArb, fc.boolean(), (target, value, other, missing) => {
        const metadata = dataSource.getMetadata(target);
        const entity = build(target, value, other, missing);
        expect(idMap(metadata, entity)).toStrictEqual(general.call(metadata, entity));
      }),
      { numRuns: 2000 },
    );
    for (const empty of [undefined, null, 0, '', 5, 'x']) {
      const metadata = dataSource.getMetadata(Numbered);
      expect(idMap(metadata, empty)).toStrictEqual(general.call(metadata, empty));
    }
  });

  it('leaves a DataSource without hilo to TypeORM’s own method, with nothing in front of it', () => {
    const metadata = outside.getMetadata(Numbered);
    expect(outside.entityMetadatas.some((m) => Object.hasOwn(m, 'getEntityIdMap'))).toBe(false);
    let reads = 0;
    const entity = Object.defineProperty(new Numbered(), 'id', {
      get: () => {
        reads++;
        return 5;
      },
    });
    // TypeORM reads the key more than once; the direct path reads it once
    expect(idMap(metadata, entity)).toStrictEqual({ id: 5 });
    expect(reads).toBeGreaterThan(1);
    reads = 0;
    expect(idMap(dataSource.getMetadata(Numbered), entity)).toStrictEqual({ id: 5 });
    expect(reads).toBe(1);
  });

  it('gives composite, embedded and relation keys no method of their own', () => {
    for (const target of [Paired, Embedding, Owned])
      expect(Object.hasOwn(dataSource.getMetadata(target), 'getEntityIdMap')).toBe(false);
  });

  it('is removed again, and TypeORM answers', async () => {
    const other = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities });
    await other.initialize();
    try {
      expect(installDirectIdMaps(other.entityMetadatas)).toBeUndefined();
      removeDirectIdMaps(other.entityMetadatas);
      expect(other.entityMetadatas.some((m) => Object.hasOwn(m, 'getEntityIdMap'))).toBe(false);
    } finally {
      await other.destroy();
    }
  });

  it('refuses metadata of another shape, so TypeORM keeps its own method', () => {
    const odd = Object.create({ getEntityIdMap: () => undefined }) as EntityMetadata;
    expect(installDirectIdMaps([dataSource.getMetadata(Lettered), odd])).toMatch(/no getEntityIdMap\(entity\)/);
  });
});
