import 'reflect-metadata';
import {
  Column,
  DataSource,
  Entity,
  JoinTable,
  ManyToMany,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { HiLoConfigurationError, HiLoExhaustedError } from 'hilo-core';
import { HiLoGeneratedColumn, hiloOf, installHiLo } from 'hilo-typeorm';
import { typeormAdapterSuite } from './support/adapter-suite.js';
import { openDataSource } from './support/data-source.js';
import { Customer, entities } from './support/entities.js';
import { describeSqlite } from './support/sqlite.js';
import { dataStatements, insertsByTable, StatementLog } from './support/statement-log.js';

/**
 * SQLite's busy timeout in the tests that prove the thread is never blocked: a thread blocked in SQLite's busy wait
 * stays blocked that long, far longer than a loaded machine ever delays a timer, so a gap that long between ticks is
 * a blocked thread and nothing else (issue #52: no bound on how busy the machine is).
 */
const BUSY_TIMEOUT_MS = 30_000;

/** Runs `work` while a 5 ms interval ticks; resolves with its result and the longest gap between ticks (ms). */
async function longestGapDuring<T>(work: () => Promise<T>): Promise<{ result: T; longestGap: number }> {
  const ticks = [Date.now()];
  const timer = setInterval(() => ticks.push(Date.now()), 5);
  try {
    const result = await work();
    return { result, longestGap: Math.max(0, ...ticks.slice(1).map((t, i) => t - ticks[i]!)) };
  } finally {
    clearInterval(timer);
  }
}

describeSqlite('typeorm on a sqlite file: keys before persistence', (db) => {
  typeormAdapterSuite(db);
});

describeSqlite('typeorm on sqlite :memory:: keys before persistence', (db) => typeormAdapterSuite(db), {
  memory: true,
});

// A graph without database defaults: TypeORM's SQLite driver batches rows only when it has nothing to
// read back after the INSERT (it has no RETURNING), and an identity key is always something to read back.
@Entity('genres')
class Genre {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) label!: string;
}

@Entity('authors')
class Author {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) name!: string;
  @OneToMany(() => Book, (book) => book.author, { cascade: true }) books!: Book[];
}

@Entity('books')
class Book {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) title!: string;
  @ManyToOne(() => Author, (author) => author.books) author!: Author;
  @ManyToMany(() => Genre, { cascade: ['insert'] }) @JoinTable({ name: 'book_genres' }) genres!: Genre[];
}

@Entity('id_genres')
class IdGenre {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 40 }) label!: string;
}

@Entity('id_authors')
class IdAuthor {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) name!: string;
  @OneToMany(() => IdBook, (book) => book.author, { cascade: true }) books!: IdBook[];
}

@Entity('id_books')
class IdBook {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) title!: string;
  @ManyToOne(() => IdAuthor, (author) => author.books) author!: IdAuthor;
  @ManyToMany(() => IdGenre, { cascade: ['insert'] }) @JoinTable({ name: 'id_book_genres' }) genres!: IdGenre[];
}

const library = [Genre, Author, Book, IdGenre, IdAuthor, IdBook];

function authors<T extends Author | IdAuthor>(manager: DataSource['manager'], target: new () => T): T[] {
  return [0, 1, 2].map(
    (n) =>
      manager.create(target as new () => Author, {
        name: `author ${n}`,
        books: [0, 1].map((b) => ({ title: `book ${n}.${b}`, genres: [{ label: `genre ${n}.${b}` }] })),
      }) as T,
  );
}

describeSqlite('typeorm on a sqlite file: statements of a save', (db) => {
  let dataSource: DataSource;
  const log = new StatementLog();

  beforeAll(async () => {
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: db.url,
      entities: library,
      synchronize: true,
      logger: log,
    });
    await dataSource.initialize();
    await installHiLo(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it(
    'saves a graph without database defaults as one multi-row INSERT per table, with no SELECT, ' +
      'where identity keys need one INSERT per row',
    async () => {
      const keyed = authors(dataSource.manager, Author);
      expect(keyed.every((a) => typeof a.id === 'number' && a.books.every((b) => typeof b.id === 'number'))).toBe(true);
      const hilo = dataStatements(await log.capture(() => dataSource.manager.save(keyed)));
      const identity = dataStatements(
        await log.capture(() => dataSource.manager.save(authors(dataSource.manager, IdAuthor))),
      );

      expect([...insertsByTable(hilo).entries()].map(([table, list]) => [table, list.length]).sort()).toEqual([
        ['authors', 1],
        ['book_genres', 1],
        ['books', 1],
        ['genres', 1],
      ]);
      expect(hilo).toHaveLength(4);
      expect(hilo.join('\n')).not.toMatch(/SELECT|UPDATE|RETURNING/i);
      // TypeORM 1.1.1: 3 authors + 6 genres + 6 books + 1 junction INSERT = 16 statements, ids from lastInsertRowid
      expect(identity.filter((s) => /^INSERT/i.test(s))).toHaveLength(16);
      expect(identity.length).toBeGreaterThan(hilo.length);

      const loaded = await dataSource
        .getRepository(Author)
        .findOneOrFail({ where: { id: keyed[2]!.id }, relations: { books: { genres: true } } });
      expect(loaded.books.map((b) => b.id).sort()).toEqual(keyed[2]!.books.map((b) => b.id).sort());
      expect(loaded.books.flatMap((b) => b.genres.map((g) => g.id)).sort()).toEqual(
        keyed[2]!.books.flatMap((b) => b.genres.map((g) => g.id)).sort(),
      );
    },
  );
});

describeSqlite('typeorm on a sqlite file: reservations and the single writer', (db) => {
  it('refuses sequences at installation, SQLite has none', async () => {
    const dataSource = new DataSource({ type: 'better-sqlite3', database: db.url, entities, synchronize: true });
    await dataSource.initialize();
    try {
      await expect(installHiLo(dataSource, { source: 'sequence' })).rejects.toThrow(HiLoConfigurationError);
      await expect(installHiLo(dataSource, { source: 'sequence' })).rejects.toThrow(/SQLite has no sequences/);
      // nothing half-installed: the default installation works afterwards
      const hilo = await installHiLo(dataSource);
      expect(typeof dataSource.manager.create(Customer, { name: 'after' }).id).toBe('number');
      await hilo.close();
    } finally {
      await dataSource.destroy();
    }
  });

  it(
    "reserves on hilo's own connection, waiting without blocking the event loop while the DataSource's " +
      'transaction holds the write lock',
    async () => {
      const { dataSource } = await openDataSource(
        db,
        { blockSize: 5, adaptive: false, prefetchAt: false, retries: 30 },
        { timeout: BUSY_TIMEOUT_MS },
      );
      try {
        const generator = hiloOf(dataSource).generator;
        // a thread blocked in SQLite's busy wait would leave one gap of the whole busy timeout between ticks (a
        // loaded machine delays timers, never by that much; counting ticks failed there: 1 tick)
        let reserved: Promise<bigint[]> | undefined;
        const { longestGap } = await longestGapDuring(() =>
          dataSource.transaction(async (manager) => {
            await manager.save(manager.create(Customer, { name: 'holds the lock' }));
            // more keys than the block in memory: a reservation, which needs the lock this transaction holds
            reserved = generator.reserve('customers', 12);
            // after a failed expectation below, closing rejects the reservation still waiting: not a second failure
            reserved.catch(() => undefined);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }),
        );
        expect(longestGap).toBeLessThan(BUSY_TIMEOUT_MS);
        const keys = await reserved!;
        expect(new Set(keys).size).toBe(12);
        expect(hiloOf(dataSource).generator.stats()['customers']!.failedAttempts).toBeGreaterThan(0);
      } finally {
        await dataSource.destroy();
      }
    },
  );

  it(
    'runs each reservation as one statement, so a TypeORM write next to it neither stalls the thread ' +
      'nor finds the file locked',
    async () => {
      const { dataSource } = await openDataSource(
        db,
        { blockSize: 5, adaptive: false, prefetchAt: false },
        {
          timeout: BUSY_TIMEOUT_MS,
        },
      );
      try {
        const generator = hiloOf(dataSource).generator;
        const { longestGap } = await longestGapDuring(async () => {
          for (let round = 0; round < 10; round++) {
            // the reservation and TypeORM's INSERT interleave on this thread
            const [keys] = await Promise.all([
              generator.reserve('customers', 7),
              dataSource.getRepository(Customer).insert({ id: 2_000_000 + round, name: 'next to it' }),
            ]);
            expect(new Set(keys).size).toBe(7);
          }
        });
        // a thread that found the file locked would wait out the whole busy timeout in one gap
        expect(longestGap).toBeLessThan(BUSY_TIMEOUT_MS);
        expect(await dataSource.getRepository(Customer).countBy({ name: 'next to it' })).toBe(10);
        // keys typed in by hand lie above the hi store: a later DataSource's verified first block would refuse them
        await dataSource.getRepository(Customer).delete({ name: 'next to it' });
      } finally {
        await dataSource.destroy();
      }
    },
  );

  it('fails with a hilo error, not a hang, when a transaction awaits a reservation only its own commit would allow', async () => {
    const { dataSource } = await openDataSource(
      db,
      { blockSize: 5, adaptive: false, prefetchAt: false, retries: 3 },
      { synchronize: false },
    );
    try {
      // answered at once, saying why (the test's timeout is the hang detector; no duration is asserted: issue #52)
      await expect(
        dataSource.transaction(async (manager) => {
          await manager.save(manager.create(Customer, { name: 'holds the lock' }));
          await hiloOf(dataSource).generator.reserve('customers', 12);
        }),
      ).rejects.toThrow(HiLoExhaustedError);
      // through save(): the error says why
      await expect(
        dataSource.transaction(async (manager) => {
          await manager.save(manager.create(Customer, { name: 'holds the lock' }));
          await manager.save(Array.from({ length: 12 }, (_, i) => manager.create(Customer, { name: `waits ${i}` })));
        }),
      ).rejects.toThrow(
        new RegExp(
          /SQLite lets one connection write at a time; .* Take keys before the transaction /.source +
            /\(`await hiloOf\(dataSource\)\.next\(Customer\)`, or `await hiloOf\(dataSource\)\.ensure\(Customer, n\)` for n rows\)/
              .source,
        ),
      );
      // the lock is free again: the next reservation goes through
      expect(new Set(await hiloOf(dataSource).generator.reserve('customers', 12)).size).toBe(12);
    } finally {
      await dataSource.destroy();
    }
  });
});

describeSqlite(
  'typeorm on sqlite :memory:: an in-process counter',
  (db) => {
    async function initialized(): Promise<DataSource> {
      const dataSource = new DataSource({ type: 'better-sqlite3', database: db.url, entities, synchronize: true });
      await dataSource.initialize();
      return dataSource;
    }

    it('starts above the keys already stored, and never hands out a key again after a rollback or a second installation', async () => {
      const dataSource = await initialized();
      try {
        await dataSource.query(`insert into customers (id, name) values (1000, 'imported')`);
        const first = await installHiLo(dataSource, { blockSize: 10 });
        expect(dataSource.manager.create(Customer, { name: 'next' }).id).toBeGreaterThan(1000);

        const rolledBack: number[] = [];
        await expect(
          dataSource.transaction(async (manager) => {
            const batch = Array.from({ length: 25 }, (_, i) => manager.create(Customer, { name: `rolled back ${i}` }));
            await manager.save(batch);
            rolledBack.push(...batch.map((c) => c.id));
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        expect(await dataSource.getRepository(Customer).countBy(rolledBack.map((id) => ({ id })))).toBe(0);

        await first.close();
        await installHiLo(dataSource, { blockSize: 10 });
        const later = await dataSource.manager.save(
          Array.from({ length: 30 }, (_, i) => dataSource.manager.create(Customer, { name: `later ${i}` })),
        );
        expect(later.map((c) => c.id).filter((id) => rolledBack.includes(id) || id <= 1000)).toEqual([]);
        expect(new Set(later.map((c) => c.id)).size).toBe(30);
      } finally {
        await dataSource.destroy();
      }
    });

    it('refuses hi-table options it cannot honour, saying what to do', async () => {
      const dataSource = await initialized();
      try {
        const attempt = installHiLo(dataSource, { source: 'table', table: 'my_hilo' });
        await expect(attempt).rejects.toThrow(HiLoConfigurationError);
        await expect(installHiLo(dataSource, { table: 'my_hilo' })).rejects.toThrow(
          new RegExp(
            /in memory \(":memory:"\), where hilo keeps the counter in this process and ignores `table`; /.source +
              /remove those options from installHiLo\(\), or use a database file/.source,
          ),
        );
      } finally {
        await dataSource.destroy();
      }
    });
  },
  { memory: true },
);
