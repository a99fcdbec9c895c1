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
};
