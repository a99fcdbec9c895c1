import 'reflect-metadata';
import fc from 'fast-check';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { CascadesSubjectBuilder } from 'typeorm/persistence/subject-builder/CascadesSubjectBuilder.js';
import { Subject } from 'typeorm/persistence/Subject.js';
import { enableInternals, installDirectIdMaps, patchCascadeLookup } from '../src/typeorm-internals.js';

// The indexed lookup must give exactly TypeORM's answer. TypeORM's own scan is kept here before the patch
// and both are asked the same questions about real Subjects built from real entity metadata: metadata as
// TypeORM builds it, and metadata whose id maps hilo builds directly (which the index then reads without
// building them), as on a DataSource hilo is installed on.

@Entity('numbered')
class Numbered {
  @PrimaryColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'varchar', nullable: true }) note?: string;
}

@Entity('lettered')
class Lettered {
  @PrimaryColumn({ type: 'varchar' }) code!: string;
}

@Entity('paired')
class Paired {
  @PrimaryColumn({ type: 'integer' }) a!: number;
  @PrimaryColumn({ type: 'integer' }) b!: number;
}

@Entity('blobbed')
class Blobbed {
  // Buffers compare by content in TypeORM (Buffer#equals), never by reference: the index must not hold them.
  @PrimaryColumn({ type: 'blob' }) id!: Buffer;
}

type Find = (this: unknown, target: unknown, entity: object) => unknown;
const prototype = CascadesSubjectBuilder.prototype as unknown as { findByPersistEntityLike: Find };
const scan = prototype.findByPersistEntityLike;
const entityClasses = [Numbered, Lettered, Paired, Blobbed];
const plain = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: entityClasses });
const direct = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: entityClasses });

beforeAll(async () => {
  await plain.initialize();
  await direct.initialize();
  // as installHiLo() does: the lookup is indexed for these DataSources only
  enableInternals(plain);
  enableInternals(direct);
  expect(installDirectIdMaps(direct.entityMetadatas)).toBeUndefined();
  expect(Object.hasOwn(direct.getMetadata(Numbered), 'getEntityIdMap')).toBe(true);
  expect(patchCascadeLookup(CascadesSubjectBuilder.prototype)).toBeUndefined();
  expect(prototype.findByPersistEntityLike).not.toBe(scan);
});
afterAll(async () => {
  await plain.destroy();
  await direct.destroy();
});

/** An entity of one of the three kinds, with a key from a small range so that keys repeat, or none. */
const entityArb = fc.oneof(
  fc.record({
    kind: fc.constant('numbered' as const),
    key: fc.option(
      fc.oneof(
        fc.integer({ min: 0, max: 5 }),
        fc.constant('3'),
        fc.constant(3n),
        fc.constant(null),
        fc.constant(Number.NaN),
      ),
      { nil: undefined },
    ),
  }),
  fc.record({
    kind: fc.constant('lettered' as const),
    key: fc.option(fc.constantFrom('a', 'b', 'c', '1'), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('paired' as const),
    key: fc.option(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('blobbed' as const),
    key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  }),
);

type Spec = { kind: 'numbered' | 'lettered' | 'paired' | 'blobbed'; key: unknown };

function build(spec: Spec): object {
  if (spec.kind === 'blobbed')
    return Object.assign(new Blobbed(), spec.key === undefined ? {} : { id: Buffer.from([spec.key as number]) });
  if (spec.kind === 'numbered') return Object.assign(new Numbered(), spec.key === undefined ? {} : { id: spec.key });
  if (spec.kind === 'lettered') return Object.assign(new Lettered(), spec.key === undefined ? {} : { code: spec.key });
  const pair = spec.key as [number, number] | undefined;
  return Object.assign(new Paired(), pair ? { a: pair[0], b: pair[1] } : {});
}

const targets = { numbered: Numbered, lettered: Lettered, paired: Paired, blobbed: Blobbed };

/** Gives an entity of the list another key after its subject was made (the subject keeps a snapshot). */
function rekey(entity: object, spec: Spec): void {
  const fresh = build(spec) as Record<string, unknown>;
  if (fresh.constructor !== entity.constructor) return;
  for (const property of ['id', 'code', 'a', 'b'])
    if (property in fresh) (entity as Record<string, unknown>)[property] = fresh[property];
}

describe('indexed cascade lookup', () => {
  it.each([
    ['TypeORM builds', plain],
    ['hilo builds directly', direct],
  ])(
    'answers every question exactly as TypeORM’s scan does, as subjects are appended (id maps %s)',
    (_, dataSource) => {
      fc.assert(
        fc.property(
          fc.array(entityArb, { maxLength: 30 }),
          fc.array(fc.tuple(fc.nat(), entityArb, fc.boolean(), fc.nat()), { minLength: 1, maxLength: 30 }),
          (subjectSpecs: Spec[], questions: [number, Spec, boolean, number][]) => {
            const entities = subjectSpecs.map(build);
            const subjects = entities.map(
              (entity) => new Subject({ metadata: dataSource.getMetadata(entity.constructor), entity }),
            );
            const builder = new CascadesSubjectBuilder(subjects);
            for (const [pick, spec, reuse, growth] of questions) {
              // ask about an object already in the list (same reference) or a new one that may share a key
              const entity = reuse && entities.length > 0 ? entities[pick % entities.length]! : build(spec);
              if (reuse && growth % 4 === 1) rekey(entity, spec);
              const target =
                targets[(entity.constructor as { name: string }).name.toLowerCase() as keyof typeof targets];
              expect(prototype.findByPersistEntityLike.call(builder, target, entity)).toBe(
                scan.call(builder, target, entity),
              );
              // the builder appends subjects between lookups, as cascades are followed
              if (growth % 3 === 0) {
                const added = build(spec);
                entities.push(added);
                subjects.push(new Subject({ metadata: dataSource.getMetadata(added.constructor), entity: added }));
              }
            }
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('refuses to patch a prototype of another shape, so TypeORM keeps its own scan', () => {
    expect(patchCascadeLookup(undefined)).toMatch(/no CascadesSubjectBuilder class/);
    expect(patchCascadeLookup({ findByPersistEntityLike: (x: unknown) => x })).toMatch(
      /no findByPersistEntityLike\(target, entity\)/,
    );
  });
});
