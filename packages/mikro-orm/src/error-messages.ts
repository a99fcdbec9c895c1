// The messages of the configuration errors hilo-mikro-orm throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids `new HiLoConfigurationError(` elsewhere.
import { HiLoConfigurationError } from 'hilo-core';

/** Factories for the configuration errors the MikroORM adapter throws: one per mistake, named after it. */
export const configurationErrors = {
  /** The MikroORM release lacks the internals hilo needs (`problem` says which); `range` is the supported one. */
  unsupportedRelease: (
    problem: string,
    range: { readonly oldest: string; readonly major: number | string; readonly oldest6: string },
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${problem}; hilo-mikro-orm needs MikroORM ${range.oldest} or a later ${range.major}.x ` +
        `release, or ${range.oldest6} (the ranges it is tested with): upgrade @mikro-orm/core and ` +
        `your driver.`,
    ),

  /** hilo cannot open a pool of its own from the driver's connection settings (`why` says what is missing). */
  cannotOpenPool: (version: string, driver: string, why: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo-mikro-orm cannot open a pool of its own for MikroORM ${version}'s ${driver}: ` +
        `${why}; pass one: \`HiLo.configure({ client })\` with pgClient, mysqlClient, sqliteClient or ` +
        `connect(url) from hilo-core.`,
    ),

  /** Opening a connection of hilo's own with the driver's settings failed. */
  cannotConnect: (driver: string, cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo-mikro-orm could not open a connection of its own with the ${driver}'s ` +
        `settings; pass one: \`HiLo.configure({ client })\` with pgClient, mysqlClient, sqliteClient ` +
        `or connect(url) from hilo-core.`,
      { cause },
    ),

  /** HiLo.generator() was asked before a generator runs for the ORM. */
  noGenerator: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'No hi/lo generator is running for this ORM: no entity has a hi/lo key, or its first blocks ' +
        "are not reserved yet; `await HiLo.ready(orm)` waits for them (MikroORM 6's init() does not).",
    ),

  /** The HiLo extension is listed twice in `extensions`. */
  registeredTwice: (): HiLoConfigurationError =>
    new HiLoConfigurationError('The HiLo extension is registered twice; list it once in `extensions`.'),

  /** em.upsert() of an entity without a key on MikroORM 6, which runs no onCreate hook there. */
  upsertOnMikroOrm6: (where: string, className: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `em.upsert() and em.upsertMany() of ${where} without a key cannot insert a hi/lo key on ` +
        `MikroORM 6: it runs no onCreate hook there, and a key in the data would become the conflict ` +
        `target instead of ${className}'s unique properties. Upgrade to MikroORM 7, or find the ` +
        `row by its unique properties and em.create() it when missing.`,
    ),

  /** A hi/lo key that is not the entity's only primary key. */
  keyNotOnlyPrimary: (
    className: string,
    keys: readonly string[],
    primaryKeys: readonly string[],
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Entity ${className} marks ${keys.map((k) => `"${k}"`).join(', ')} as hi/lo key with ` +
        `primary keys [${primaryKeys.join(', ')}]; a hi/lo key must be the entity's only primary ` +
        `key.`,
    ),

  /** A hi/lo key with `autoincrement: true`. */
  autoincrementKey: (className: string, property: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Entity ${className}.${property} is a hi/lo key but has \`autoincrement: true\`; remove ` +
        `it (hiloKey() sets \`autoincrement: false\`), the database must not generate this key.`,
    ),

  /** The generator was asked for before discovery finished, or no entity has a hi/lo key. */
  notRunning: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'The hi/lo generator is not running: MikroORM has not finished discovery, or no entity has a ' +
        'hi/lo key. Create the ORM with `await MikroORM.init(config)` and mark keys with hiloKey() or ' +
        '@HiLoKey().',
    ),

  /** An entity has a hi/lo key, but the HiLo extension is not registered. */
  extensionNotRegistered: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'An entity has a hi/lo key, but the HiLo extension is not registered; add it to the MikroORM ' +
        'config: `defineConfig({ extensions: [HiLo], … })`.',
    ),
};
