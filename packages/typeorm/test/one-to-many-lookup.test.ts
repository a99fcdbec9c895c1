import 'reflect-metadata';
import fc from 'fast-check';
import { Column, DataSource, Entity, ManyToOne, OneToMany, PrimaryColumn } from 'typeorm';
import { OneToManySubjectBuilder } from 'typeorm/persistence/subject-builder/OneToManySubjectBuilder.js';
import { Subject } from 'typeorm/persistence/Subject.js';
import { enableInternals, patchOneToManyLookup } from '../src/typeorm-internals.js';

// hilo's one-to-many step must build exactly what TypeORM's does. TypeORM's own method is kept here, and a
// copy of its prototype gets hilo's version; both build the same world of real Subjects from real metadata —
// parents with and without keys and rows, children in the save or not, shared, repeated, without keys,
// removed from a parent's array, and `undefined` entries — and the subjects they leave are compared.

@Entity('o2m_parent')
class Parent {
  @PrimaryColumn({ type: 'integer' }) id!: number;
  @OneToMany(() => Child, (child) => child.parent) children?: Array<Child | undefined>;
}

@Entity('o2m_child')
class Child {
  @PrimaryColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'varchar', nullable: true }) note?: string;
  @ManyToOne(() => Parent, (parent) => parent.children, { nullable: true }) parent?: Parent;
}

type Build = (this: unknown, subject: unknown, relation: unknown) => void;
const prototype = OneToManySubjectBuilder.prototype as unknown as { buildForSubjectRelation: Build };
const original = prototype.buildForSubjectRelation;
const patched = { buildForSubjectRelation: original };
const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:', entities: [Parent, Child] });

beforeAll(async () => {
  await dataSource.initialize();
  enableInternals(dataSource); // as installHiLo() does: the narrowed lookup serves this DataSource only
  expect(patchOneToManyLookup(patched)).toBeUndefined();
  expect(patched.buildForSubjectRelation).not.toBe(original);
});
afterAll(() => dataSource.destroy());

/** A child of the world: its key (or none) and how many subjects hold it in the save (TypeORM makes one; two test the first-match rule). */
const childArb = fc.record({
  key: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  inSave: fc.nat({ max: 2 }),
});
/** A parent: its key, the keys of the children its row has in the database (if it has a row), and its array. */
const parentArb = fc.record({
  key: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  stored: fc.option(fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 4 }), { nil: undefined }),
  children: fc.option(fc.array(fc.oneof(fc.nat(), fc.constant('undefined' as const)), { maxLength: 6 }), {
    nil: undefined,
  }),
});
type World = {
  children: Array<{ key?: number; inSave: number }>;
  parents: Array<{ key?: number; stored?: number[]; children?: Array<number | 'undefined'> }>;
};

/** How many times a builder's subject list was swapped (hilo's narrowing), over every world built. */
let narrowings = 0;

/** Builds the world's entities and subjects; returns the builder and what the subjects look like afterwards. */
function run(world: World, method: Build): unknown {
  const labels = new Map<object, string>();
  const children = world.children.map((spec, i) => {
    const child = Object.assign(new Child(), spec.key === undefined ? {} : { id: spec.key });
    labels.set(child, `c${i}`);
    return child;
  });
  const subjects: Subject[] = [];
  world.parents.forEach((spec, i) => {
    const parent = Object.assign(new Parent(), spec.key === undefined ? {} : { id: spec.key });
    if (spec.children)
      parent.children = spec.children.map((ref) =>
        ref === 'undefined' || children.length === 0 ? undefined : children[ref % children.length],
      );
    labels.set(parent, `p${i}`);
    const databaseEntity =
      spec.stored && spec.key !== undefined ? { id: spec.key, children: spec.stored.map((id) => ({ id })) } : undefined;
    subjects.push(
      new Subject({
        metadata: dataSource.getMetadata(Parent),
        entity: parent,
        ...(databaseEntity ? { databaseEntity } : {}),
        canBeInserted: !databaseEntity,
        canBeUpdated: !!databaseEntity,
      }),
    );
  });
  world.children.forEach((spec, i) => {
    for (let n = 0; n < spec.inSave; n++)
      subjects.push(
        new Subject({ metadata: dataSource.getMetadata(Child), entity: children[i]!, canBeInserted: true }),
      );
  });
  const builder = new OneToManySubjectBuilder(subjects) as unknown as {
    build(): void;
    buildForSubjectRelation: Build;
    subjects: unknown;
  };
  builder.buildForSubjectRelation = method;
  // count how often the list is swapped: hilo narrows it, TypeORM never does
  let list = builder.subjects;
  Object.defineProperty(builder, 'subjects', {
    get: () => list,
    set: (value: unknown) => ((list = value), narrowings++),
  });
  let error: unknown;
  try {
    builder.build();
  } catch (thrown) {
    error = (thrown as Error).message;
  }
  return {
    error,
    subjects: subjects.map((s) => ({
      metadata: s.metadata.name,
      entity: s.entity ? labels.get(s.entity) : null,
      identifier: s.identifier,
      canBeUpdated: s.canBeUpdated,
      mustBeRemoved: s.mustBeRemoved,
      changeMaps: s.changeMaps.map((change) => ({
        relation: change.relation?.propertyPath,
        value: change.value instanceof Subject ? subjects.indexOf(change.value) : change.value,
      })),
    })),
  };
}

describe('narrowed one-to-many lookup', () => {
  it('leaves exactly the subjects and change maps TypeORM’s own method leaves', () => {
    fc.assert(
      fc.property(
        fc.array(childArb, { maxLength: 8 }),
        fc.array(parentArb, { minLength: 1, maxLength: 4 }),
        (children, parents) => {
          const world = { children, parents } as World;
          expect(run(world, patched.buildForSubjectRelation)).toEqual(run(world, original));
        },
      ),
      { numRuns: 500 },
    );
    // the worlds took hilo's narrowed path (on this TypeORM release too), not only TypeORM's fallback
    expect(narrowings).toBeGreaterThan(100);
  });

  it('refuses to patch a prototype of another shape, so TypeORM keeps its own method', () => {
    expect(patchOneToManyLookup(undefined)).toMatch(/no OneToManySubjectBuilder class/);
    expect(patchOneToManyLookup({ buildForSubjectRelation: (x: unknown) => x })).toMatch(
      /no buildForSubjectRelation\(subject, relation\)/,
    );
  });
});
