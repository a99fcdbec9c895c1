// MikroORM 6's `@mikro-orm/sqlite` drives the `sqlite3` package, whose native build cannot be fetched here;
// its better-sqlite3 driver is the one this project runs. The suites import `SqliteDriver` from
// `@mikro-orm/sqlite`, which jest.config.ts maps to this file in the MikroORM 6 project.
export { BetterSqliteDriver as SqliteDriver } from '@mikro-orm/better-sqlite';
