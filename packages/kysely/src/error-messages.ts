// The messages of the configuration errors hilo-kysely throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids `new HiLoConfigurationError(` elsewhere.
import { HiLoConfigurationError } from 'hilo-core';

/** A table as hiloKysely() has it registered. */
interface RegisteredTable {
  readonly table: string;
  readonly segment: string;
  readonly column: string;
}

/** Factories for the configuration errors the Kysely adapter throws: one per mistake, named after it. */
export const configurationErrors = {
  /**
   * An insert into a registered table under another schema (`written`) than the registered one (`registered`,
   * `undefined` for none).
   */
  otherSchema: (
    written: string,
    name: string,
    table: RegisteredTable,
    registered: string | undefined,
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `An insert into "${written}"."${name}" (withSchema('${written}')), but hiloKysely() has the table registered as ` +
        `"${table.table}", so the blocks of segment "${table.segment}" are checked against ` +
        `${registered === undefined ? `"${name}" in the default schema of hilo's connection` : `"${table.table}"`}, ` +
        `not the table these rows go to. Register it with its schema (\`tables: { '${written}.${name}': … }\`), or, ` +
        `for a table every tenant has, once with \`tenants: '*'\` (\`tables: { ${name}: { tenants: '*' } }\`: ` +
        `every tenant's copy is checked).`,
    ),

  /** An INSERT … SELECT into a registered table, whose rows hilo cannot give keys to. */
  insertSelect: (table: RegisteredTable): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo-kysely cannot give keys to the rows of an INSERT … SELECT into "${table.table}" (insertInto().expression()): ` +
        `they come from the database, not from values(). ` +
        `Add "${table.column}" to columns() and to the select, or insert the rows with values() so that hilo fills their keys.`,
    ),

  /** A key was asked for a table not registered with hiloKysely(). */
  tableNotRegistered: (table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Table "${table}" is not registered with hiloKysely(); add it to \`tables\`.`),

  /** hilo.insert() got an insert built on a Kysely instance without this hilo's plugin. */
  pluginMissing: (table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.insert() got an insert into "${table}" built on a Kysely instance that does not ` +
        `run this hilo's plugin, so its rows would reach the database without keys. Pass the plugin where ` +
        `the instance is created: \`new Kysely<DB>({ dialect, plugins: [hilo.plugin] })\`, or ` +
        `\`db.withPlugin(hilo.plugin)\`.`,
    ),

  /** hilo.loadGraph() on a Kysely whose dialect compiles `text` for `"a" ${1}`: none of PostgreSQL, MariaDB, SQLite. */
  graphDialect: (text: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph() loads into PostgreSQL, MariaDB/MySQL and SQLite, but this Kysely's dialect writes a name and ` +
        `a parameter as \`${text}\`, which is none of theirs. Use hilo-core's loadGraph() with a target of its own ` +
        `(pgGraphTarget, mysqlGraphTarget, sqliteGraphTarget).`,
    ),

  /** hilo.loadGraph() on PostgreSQL without a `pg` Pool in `pool`. */
  graphNeedsPool: (given: unknown): HiLoConfigurationError =>
    HiLoConfigurationError.invalidOption(
      'pool',
      "the `pg` Pool you gave Kysely's PostgresDialect (`hilo.loadGraph(db, { pool, tables, input })`): the load " +
        "writes by binary COPY, which needs pg's connection. postgres.js (kysely-postgres-js) and PGlite have no " +
        'bulk path in hilo-core: load through a pg Pool on the same database, or insert with `hilo.insert()`',
      given,
    ),

  /** hilo.loadGraph() on SQLite without the driver's database in `database`. */
  graphNeedsDatabase: (given: unknown): HiLoConfigurationError =>
    HiLoConfigurationError.invalidOption(
      'database',
      "the better-sqlite3 Database (or node:sqlite DatabaseSync) you gave Kysely's SqliteDialect " +
        "(`hilo.loadGraph(db, { database, tables, input })`): its writes need the driver's synchronous statements",
      given,
    ),

  /** `option` is not the connection behind the Kysely instance (another database, or not its transaction). */
  graphOtherDatabase: (option: string, dialect: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph(): \`${option}\` does not reach the database (or the transaction) of the Kysely instance it was ` +
        `called with. Pass the very \`${option}\` you gave ${dialect}, and call hilo.loadGraph() with the Kysely ` +
        `built on it (or its transaction).`,
    ),

  /** `pool` has not pg-pool's shape: its connections cannot be searched for the transaction's. */
  graphPoolShape: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      "hilo.loadGraph() in a Kysely transaction on PostgreSQL finds the transaction's connection in `pool` (Kysely " +
        "does not expose it), but this pool has not pg-pool's list of connections (`_clients`, pg-pool 2 and 3). " +
        'Pass the `pg` Pool you gave PostgresDialect, or load outside the transaction (`hilo.loadGraph(db, …)`: ' +
        'the load then commits on its own connection).',
    ),

  /** No connection (or several) of `pool` runs the server process of the transaction (`pid`). */
  graphTransactionConnection: (pid: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph() in a Kysely transaction on PostgreSQL: the transaction runs in server process ${pid}, and ` +
        'not exactly one connection of `pool` does. Pass the `pg` Pool you gave the PostgresDialect of this Kysely ' +
        '(postgres.js and PGlite transactions cannot be loaded into), or load outside the transaction.',
    ),

  /** A graph load into a table of another schema on SQLite, whose graph target writes the main schema only. */
  graphSchemaOnSqlite: (table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo.loadGraph() on SQLite writes tables of the main database only, but "${table}" is named in another ` +
        "schema (withSchema() or 'schema.table'). Load it with a Kysely without withSchema().",
    ),
};
