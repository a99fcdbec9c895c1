// Tree entities (@Tree) store their hierarchy in rows TypeORM writes after the INSERT of each node: a closure
// table of (ancestor, descendant) keys, or a materialized path built from the keys. With hilo keys the
// hierarchy must be built from the keys the nodes were created with, and read back whole. TypeORM's join column
// of `@TreeParent` copies the key's bigint type, not its transformer: hilo gives it the key's, or the tree comes
// back without children (the parent keys read as strings) and `@RelationId` gives strings.
import 'reflect-metadata';
import { Column, DataSource, Entity, RelationId, Tree, TreeChildren, TreeParent } from 'typeorm';
import { describePostgres } from '@hilo/testing';
import { HiLoGeneratedColumn, withHiLo } from 'hilo-typeorm';

@Entity('closure_categories')
@Tree('closure-table')
class ClosureCategory {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) name!: string;
  @TreeChildren({ cascade: true }) children!: ClosureCategory[];
  @TreeParent() parent?: ClosureCategory;
  @RelationId((category: ClosureCategory) => category.parent) parentId?: number;
}

@Entity('path_categories')
@Tree('materialized-path')
class PathCategory {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) name!: string;
  @TreeChildren({ cascade: true }) children!: PathCategory[];
  @TreeParent() parent?: PathCategory;
}

describePostgres('typeorm: tree entities with hilo keys', (db) => {
  it.each([
    ['closure-table', ClosureCategory],
    ['materialized-path', PathCategory],
  ] as const)(
    'should build a %s hierarchy from the keys known at create() and read it back whole',
    async (_kind, Category) => {
      const dataSource = withHiLo(
        new DataSource({ type: 'postgres', url: db.url, entities: [ClosureCategory, PathCategory], synchronize: true }),
      );
      await dataSource.initialize();
      try {
        const repository = dataSource.getTreeRepository<ClosureCategory | PathCategory>(Category);
        const root = repository.create({ name: 'root' });
        const books = repository.create({ name: 'books', parent: root });
        const fiction = repository.create({ name: 'fiction', parent: books });
        const music = repository.create({ name: 'music', parent: root });
        const keys = [root, books, fiction, music].map((node) => node.id);
        expect(keys.every((key) => Number.isInteger(key))).toBe(true);
        await repository.save(root);
        await repository.save(books);
        await repository.save(fiction);
        await repository.save(music);
        expect([root, books, fiction, music].map((node) => node.id)).toEqual(keys);

        const tree = await repository.findDescendantsTree(root);
        const shape = (node: {
          id: number;
          name: string;
          children?: Array<{ id: number; name: string }>;
        }): unknown => ({
          id: node.id,
          name: node.name,
          children: (node.children ?? [])
            .map((child) => shape(child as never))
            .sort((a, b) => (a as { id: number }).id - (b as { id: number }).id),
        });
        expect(shape(tree as never)).toEqual({
          id: root.id,
          name: 'root',
          children: [
            { id: books.id, name: 'books', children: [{ id: fiction.id, name: 'fiction', children: [] }] },
            { id: music.id, name: 'music', children: [] },
          ].sort((a, b) => a.id - b.id),
        });
        if (Category === ClosureCategory) {
          expect((await dataSource.getRepository(ClosureCategory).findOneByOrFail({ id: books.id })).parentId).toBe(
            root.id,
          );
        }
        expect((await repository.findAncestors(fiction)).map((node) => node.id).sort((a, b) => a - b)).toEqual(
          [root.id, books.id, fiction.id].sort((a, b) => a - b),
        );
      } finally {
        await dataSource.destroy();
      }
    },
  );
});
