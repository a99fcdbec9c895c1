// The messages of the configuration errors hilo-drizzle throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids `new HiLoConfigurationError(` elsewhere.
import { HiLoConfigurationError } from 'hilo-core';

/** How to load without hilo-drizzle's wiring: hilo-core's loadGraph() with a target of your own. */
const CORE_ROUTE = "or call hilo-core's loadGraph() with pgGraphTarget, mysqlGraphTarget or sqliteGraphTarget yourself";

/** Factories for the configuration errors the Drizzle adapter throws: one per mistake, named after it. */
export const configurationErrors = {
  /** One segment's keys asked for with two different `as` conversions. */
  segmentAsConflict: (segment: string, known: string, as: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Segment "${segment}" is already used with as = "${known}", not "${as}"`),

  /** `hilo.loadGraph(db, …)` was given something that is not a Drizzle table in `tables`. */
  graphNotATable: (got: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): \`tables\` takes Drizzle tables (pgTable, mysqlTable, sqliteTable, pgSchema(...).table), ` +
        `got ${typeof got === 'object' && got !== null ? `a ${got.constructor?.name ?? 'null-prototype object'}` : String(got)}.`,
    ),

  /** A table of the load has no column whose `$defaultFn` is `hilo.key(...)`. */
  graphNoKeyColumn: (table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): table "${table}" has no hilo key column, so the load cannot give its rows keys. Define its ` +
        `key column with .$defaultFn(hilo.key('${table}')), or leave the table out of \`tables\`.`,
    ),

  /** A table of the load has several hilo key columns. */
  graphManyKeyColumns: (table: string, columns: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): table "${table}" has ${columns.length} hilo key columns (${columns.join(', ')}); a graph ` +
        `load fills one. Keep .$defaultFn(hilo.key(...)) on the primary key column only.`,
    ),

  /** A child names, in `via`, a property that is not a column of its table. */
  graphUnknownVia: (table: string, via: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): \`via: '${via}'\` names no column of table "${table}"; give the property name of the ` +
        `foreign-key column (as in the table's definition) that takes the parent's key.`,
    ),

  /** A row's value is a SQL expression, which a bulk load cannot send. */
  graphSqlValue: (table: string, property: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): ${table}.${property} is a SQL expression (sql\`...\`, a placeholder); a graph load sends ` +
        `values, not SQL. Give the value itself in the row.`,
    ),

  /** A row lacks the value of a column whose default only the database computes. */
  graphDatabaseDefault: (table: string, property: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): a row of "${table}" has no ${property}, and its column's default is computed by the ` +
        `database (defaultNow(), defaultRandom(), sql\`...\`, serial or identity), which a graph load cannot ask ` +
        `for row by row. Give ${property} in every row (e.g. new Date(), crypto.randomUUID()), or give the column ` +
        `a $defaultFn(() => ...) that Drizzle and the load both call.`,
    ),

  /** `hilo.loadGraph(db, …)` got a database or transaction of a driver hilo-core has no bulk path for. */
  graphUnsupportedDriver: (kind: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(db, ...): got ${kind}. Graph loads write through node-postgres (COPY), mysql2 or ` +
        `better-sqlite3: pass a Drizzle database (or transaction) opened with drizzle({ client }) on a pg Pool or ` +
        `Client, a mysql2 pool or connection, or a better-sqlite3 Database (postgres.js and PGlite have no bulk ` +
        `path in hilo-core yet: open a pg Pool on the same database for the load), ${CORE_ROUTE}.`,
    ),

  /** A Drizzle better-sqlite3 transaction: synchronous, so an asynchronous load cannot run inside it. */
  graphSqliteTransaction: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(tx, ...): Drizzle's better-sqlite3 transactions are synchronous, and a graph load is not. ` +
        `Pass the database instead: the load runs in a transaction of its own, or, when the database is already ` +
        `inside a transaction you began (db.run(sql\`begin\`)), in a savepoint of it that your commit or rollback decides.`,
    ),

  /** A load on SQLite needs keys hilo does not hold in memory; its reservation would wait on the load's own lock. */
  graphSqliteKeysNotInMemory: (segment: string, needed: number, available: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(db, ...) on SQLite: a batch needs ${needed} keys of segment "${segment}" and ${available} are in ` +
        `memory. The load holds SQLite's one write lock until it commits, so hilo, which reserves on a connection of ` +
        `its own, cannot reserve during it. Before the load, await hilo.ensure(table, rows) for each of its tables ` +
        `with the number of rows it will write there.`,
    ),

  /** A Drizzle transaction whose connection is not where the tested Drizzle releases keep it. */
  graphTransactionShape: (kind: string, version: string, problem: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(tx, ...): cannot find the connection of a ${kind} in drizzle-orm ${version} (${problem}). ` +
        `hilo-drizzle reads it from the transaction's session on drizzle-orm 0.36 to 0.45, 1.0.0-beta.24 and ` +
        `1.0.0-rc.5. Call hilo.loadGraph(db, ...) outside the transaction (the load has one of its own), ${CORE_ROUTE} ` +
        `on the connection your transaction runs on, with inTransaction: true.`,
    ),
};
