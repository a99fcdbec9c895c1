import { DataSource, EntitySchema } from 'typeorm';
import { describeMysql, describePostgres } from '@hilo/testing';
import { HiLoConfigurationError } from 'hilo-core';
import { hiloColumn, hiloKeyTransformer, hiloOf, installHiLo } from 'hilo-typeorm';
import { connectionOptions } from './support/data-source.js';
import { describeSqlite, type SuiteDatabase } from './support/sqlite.js';
import { insertsByTable, selectsBeforeInsert, StatementLog } from './support/statement-log.js';

// Entities declared without classes or decorators: TypeORM's EntitySchema, with hiloColumn() as the key.

interface Author {
  id: number;
  name: string;
  books: Book[];
}

interface Book {
  id: bigint;
  title: string;
  authorId: number;
  author?: Author;
}

const AuthorSchema = new EntitySchema<Author>({
  name: 'SchemaAuthor',
  tableName: 'schema_authors',
  columns: {
    id: hiloColumn(),
    name: { type: 'varchar', length: 100 },
  },
  relations: {
    books: { type: 'one-to-many', target: 'SchemaBook', inverseSide: 'author', cascade: true },
  },
});

const BookSchema = new EntitySchema<Book>({
  name: 'SchemaBook',
  tableName: 'schema_books',
  columns: {
    id: hiloColumn({ segment: 'books', keyType: 'bigint', blockSize: 20 }),
    title: { type: 'varchar', length: 100 },
    authorId: { type: 'bigint', transformer: hiloKeyTransformer },
  },
  relations: {
    author: { type: 'many-to-one', target: 'SchemaAuthor', inverseSide: 'books', joinColumn: { name: 'authorId' } },
  },
});

function entitySchemaSuite(db: SuiteDatabase): void {
  let dataSource: DataSource;
  const log = new StatementLog();

  beforeAll(async () => {
    dataSource = new DataSource({
      ...connectionOptions(db),
      entities: [AuthorSchema, BookSchema],
      synchronize: true,
      logger: log,
    });
    await dataSource.initialize();
    await installHiLo(dataSource);
  });
  afterAll(() => dataSource.destroy());

  it('finds hiloColumn() keys and their segments at installation', () => {
    expect(hiloOf(dataSource).segments.sort()).toEqual(['books', 'schema_authors']);
    expect(hiloOf(dataSource).segmentOf(BookSchema)).toBe('books');
  });

  it('assigns keys at create() to a schema entity and the new entities nested in it, as numbers or bigints', () => {
    const author = dataSource
      .getRepository(AuthorSchema)
      .create({ name: 'Le Guin', books: [{ title: 'The Dispossessed' }, { title: 'Lathe' }] });
    expect(typeof author.id).toBe('number');
    expect(author.books.map((b) => typeof b.id)).toEqual(['bigint', 'bigint']);
  });

  it('saves a new graph with one INSERT per table, no SELECT first, and the keys create() gave', async () => {
    const authors = dataSource.getRepository(AuthorSchema);
    const graph = authors.create([
      { name: 'Butler', books: [{ title: 'Kindred' }, { title: 'Dawn' }] },
      { name: 'Jemisin', books: [{ title: 'The Fifth Season' }] },
    ]);
    const keys = graph.map((a) => [a.id, a.books.map((b) => b.id)] as const);
    const sent = await log.capture(() => authors.save(graph));
    expect(selectsBeforeInsert(sent)).toEqual([]);
    const inserts = insertsByTable(sent);
    expect(inserts.get('schema_authors')).toHaveLength(1);
    expect(inserts.get('schema_books')).toHaveLength(1);
    expect(sent.some((s) => /returning\s+"?id"?/i.test(s))).toBe(false);
    const stored = await dataSource.getRepository(BookSchema).find({ order: { title: 'ASC' } });
    expect(
      stored
        .filter((b) => ['Dawn', 'Kindred', 'The Fifth Season'].includes(b.title))
        .map((b) => [b.title, b.id, b.authorId]),
    ).toEqual([
      ['Dawn', keys[0]![1][1], keys[0]![0]],
      ['Kindred', keys[0]![1][0], keys[0]![0]],
      ['The Fifth Season', keys[1]![1][0], keys[1]![0]],
    ]);
  });

  it('consumes no keys when loading', async () => {
    const issued = () => Object.values(hiloOf(dataSource).generator.stats()).reduce((n, s) => n + s.keysIssued, 0);
    const before = issued();
    const loaded = await dataSource.getRepository(AuthorSchema).find({ relations: { books: true } });
    expect(loaded.length).toBeGreaterThan(0);
    expect(typeof loaded[0]!.id).toBe('number');
    expect(issued()).toBe(before);
  });
}

describe('hiloColumn() options', () => {
  it('refuses bad options when the schema is declared, naming the option', () => {
    expect(() => hiloColumn({ keyType: 'string' as never })).toThrow(HiLoConfigurationError);
    expect(() => hiloColumn({ blockSize: 0 })).toThrow(/hiloColumn\(\) blockSize/);
    expect(() => hiloColumn({ colour: 'red' } as never)).toThrow(/Unknown option `colour` for hiloColumn\(\)/);
    expect(hiloColumn({ type: 'int' })).toMatchObject({ type: 'int', primary: true });
  });
});

describeSqlite('typeorm EntitySchema on a sqlite file', entitySchemaSuite);
describePostgres('typeorm EntitySchema on postgres', (db) => entitySchemaSuite(db));
describeMysql('typeorm EntitySchema on mariadb', (db) => entitySchemaSuite(db));
