// Adapters ask core's dialect table what database their ORM is on (issue #38): each ORM's own names for the
// three databases hilo speaks map to one dialect name, and anything else is a configuration error naming it.
import { HiLoConfigurationError } from '../src/errors.js';
import { dialectOf } from '../src/kit.js';

describe('dialectOf', () => {
  it.each([
    ['TypeORM', ['postgres', 'mysql', 'mariadb', 'better-sqlite3']],
    ['MikroORM', ['PostgreSqlPlatform', 'MySqlPlatform', 'MariaDbPlatform', 'SqlitePlatform', 'BetterSqlitePlatform']],
    ['Prisma', ['postgresql', 'mysql', 'sqlite']],
    ['Drizzle', ['PgDialect', 'MySqlDialect', 'SQLiteSyncDialect', 'SQLiteAsyncDialect']],
    ['Kysely', ['PostgresAdapter', 'MysqlAdapter', 'SqliteAdapter']],
  ])('maps what %s reports to a dialect name', (_orm, names) => {
    const expected: Record<string, string> = {
      postgres: 'postgres',
      postgresql: 'postgres',
      PostgreSqlPlatform: 'postgres',
      PgDialect: 'postgres',
      PostgresAdapter: 'postgres',
      mysql: 'mysql',
      mariadb: 'mysql',
      MySqlPlatform: 'mysql',
      MariaDbPlatform: 'mysql',
      MySqlDialect: 'mysql',
      MysqlAdapter: 'mysql',
    };
    for (const name of names) expect([name, dialectOf(name)]).toEqual([name, expected[name] ?? 'sqlite']);
  });

  it('takes the first of several candidates that matches', () => {
    expect(dialectOf(['MyPlatform', 'MariaDbPlatform', 'MySqlPlatform'])).toBe('mysql');
  });

  it.each(['mssql', 'LibSqlPlatform', 'aurora-postgres', 'cockroachdb', '', undefined, 42])(
    'refuses %p with a configuration error naming it',
    (value) => {
      expect(() => dialectOf(value)).toThrow(HiLoConfigurationError);
      expect(() => dialectOf(value)).toThrow(/Expected a database hilo speaks \(PostgreSQL, MariaDB, SQLite\), got /);
    },
  );

  it('words the error as the adapter asks', () => {
    expect(() => dialectOf('MsSqlPlatform', (got) => `not on ${got}`)).toThrow(
      new HiLoConfigurationError('not on MsSqlPlatform'),
    );
  });
});
