// The messages of the configuration errors hilo-prisma throws, one factory per mistake: written once, named after
// what went wrong. Internal (not exported from the package); ESLint forbids `new HiLoConfigurationError(` elsewhere.
import { HiLoConfigurationError } from 'hilo-core';

/** Factories for the configuration errors the Prisma adapter and its generator throw: one per mistake, named after it. */
/** Why hilo-prisma does not run on SQLite, and what to use there (also the key supply's `runsOn.why`). */
export const SQLITE_WHY =
  "hilo's reservations would wait for the file's write lock, which Prisma's `$transaction` holds while it waits " +
  'for the keys. On SQLite use hilo-drizzle, hilo-kysely, hilo-typeorm or hilo-mikro-orm.';

export const configurationErrors = {
  /** The `generator hilo` block has no `output`. */
  noGeneratorOutput: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      "hilo-prisma generator: set `output` in `generator hilo { … }`, e.g. the client's output folder.",
    ),

  /** A `@hilo(…)` comment whose options cannot be read. */
  unreadableOptions: (where: string, body: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Cannot read the @hilo options of ${where}: "${body}". Write them as \`@hilo(segment: "orders", blockSize: 500)\`.`,
    ),

  /** A `@hilo` segment that is not a quoted string. */
  unquotedSegment: (where: string, raw: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The @hilo segment of ${where} must be a quoted string, got ${raw}; write segment: "${raw}".`,
    ),

  /** A `@hilo` blockSize that is not a positive integer. */
  invalidBlockSize: (where: string, raw: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`The @hilo blockSize of ${where} must be a positive integer, got ${raw}.`),

  /** A `@hilo` option other than segment and blockSize. */
  unknownOption: (name: string | undefined, where: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Unknown @hilo option "${name}" on ${where}; the options are segment and blockSize.`),

  /** A model tagged @hilo without a single-field @id. */
  noSingleId: (model: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Model ${model} is tagged @hilo but has no single-field @id; hilo fills one Int or BigInt @id field.`,
    ),

  /** A model tagged @hilo whose @id is neither Int nor BigInt. */
  idNotInteger: (model: string, field: string, type: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Model ${model} is tagged @hilo but its @id \`${field}\` is ${type}; make it Int or BigInt (BigInt recommended).`,
    ),

  /** A model tagged @hilo whose @id has @default(autoincrement()). */
  autoincrementId: (model: string, field: string, segment: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Model ${model} is tagged @hilo but \`${field}\` has @default(autoincrement()); replace ` +
        `it with @default(dbgenerated("hilo_missing_key('${segment}')")).`,
    ),

  /** A key was asked for a model without a hi/lo key (`why` adds the reason, or ''). */
  modelWithoutKey: (model: string | undefined, why: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Model ${model ?? '(unknown)'} has no hi/lo key${why}; tag it with \`/// @hilo\` in schema.prisma (or ` +
        `add it to \`metadata.models\`) and run \`prisma generate\`.`,
    ),

  /** createManyAndReturn with `skipDuplicates` on MySQL/MariaDB. */
  skipDuplicatesOnMysql: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createManyAndReturn on MySQL/MariaDB does not take \`skipDuplicates\`: INSERT IGNORE does not say ` +
        `which rows it skipped. Use createMany({ skipDuplicates: true }) and read the rows you need.`,
    ),

  /** A SQLite or libSQL database, told by the schema's provider or the client's driver adapter. */
  sqliteUnsupported: (how: 'provider' | 'adapter'): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hilo-prisma does not run on SQLite or libSQL (${
        how === 'provider'
          ? 'the schema\'s datasource provider is "sqlite"'
          : "the client's driver adapter is a SQLite one"
      }): ${SQLITE_WHY}`,
    ),

  /** A relation points at a model the hilo metadata does not describe. */
  relationToUnknownModel: (model: string, field: string, target: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Relation \`${model}.${field}\` points at model "${target}", which the hilo metadata does ` +
        `not describe; regenerate it with \`prisma generate\`.`,
    ),
};
