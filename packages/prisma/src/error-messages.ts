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

  // createGraph()

  /** createGraph() without `graph.pool` in hilo()'s options, or with a pool of another shape. */
  graphNeedsPool: (pool: unknown): HiLoConfigurationError =>
    HiLoConfigurationError.invalidOption(
      'graph.pool',
      "the driver pool the app gave Prisma's adapter: a `pg` Pool (`new PrismaPg(pool)`), or a `mysql2/promise` " +
        'Pool on MariaDB/MySQL, e.g. hilo({ metadata, url, graph: { pool } }); createGraph() writes through it',
      pool,
    ),

  /** createGraph() called on an interactive transaction's client. */
  graphInTransaction: (model: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${model}.createGraph() cannot run inside $transaction: it writes on a connection of graph.pool, in a ` +
        "transaction of its own, which Prisma's transaction cannot see or roll back. Call it on the client " +
        'outside $transaction (it is one transaction already), or use create/createMany inside it.',
    ),

  /** Metadata without the generator's `graph` section (written by hand, or by an older generator). */
  graphNoMetadata: (model: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph() needs the columns and foreign keys of model ${model}, which the hilo metadata does not ` +
        'have: import `hiloMetadata` from the file the hilo-prisma generator writes and run `prisma generate`.',
    ),

  /** A field the model does not have. */
  graphUnknownField: (model: string, field: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): model ${model} has no field \`${field}\`; write the model's scalar fields, and nested ` +
        '`create`/`createMany` under its to-many or to-one relations.',
    ),

  /** A relation field on the side that holds the foreign key (`order: { … }` in an OrderItem). */
  graphForeignKeySide: (model: string, field: string, fields: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}\` is the side of the relation that holds the foreign key ` +
        `(${fields.map((f) => `\`${f}\``).join(', ')}); a graph load writes parents before children, so set ` +
        `${fields.map((f) => `\`${f}\``).join(', ')} to an existing row's key, or create the parent with this ` +
        'row nested under it (`create`/`createMany`).',
    ),

  /** A relation whose other side holds no foreign key hilo can fill (implicit many-to-many, a compound key). */
  graphNoForeignKey: (model: string, field: string, target: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}\` has no single foreign-key field on ${target} referencing ` +
        `${model}'s hi/lo key (an implicit many-to-many, or a compound or other reference); create those rows ` +
        'with create/createMany after the load.',
    ),

  /** A nested write other than `create`/`createMany`. */
  graphNestedWrite: (model: string, field: string, operation: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}.${operation}\` is not a create; a graph load only creates rows, so ` +
        `use \`create\` or \`createMany\` under ${field}, and ${
          operation.startsWith('connect')
            ? "set the foreign key to the existing row's key (or connect it after the load)"
            : 'update after the load'
        }.`,
    ),

  /** `createMany: { skipDuplicates: true }`, which a bulk load cannot honour. */
  graphSkipDuplicates: (model: string, field: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}.createMany\` sets skipDuplicates, which a graph load cannot do ` +
        '(every row gets a new key, and a duplicate fails the load); leave it out.',
    ),

  /** A field whose default the database computes (`dbgenerated()`, `autoincrement()`) set in the input. */
  graphDatabaseDefault: (model: string, field: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}\` has a default the database computes, so a graph load leaves its ` +
        'column to the database; leave the field out, or write the row with create().',
    ),

  /** A field with a default Prisma computes itself (`uuid()`, `cuid()`, …) left out of the input. */
  graphPrismaDefault: (model: string, field: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `createGraph(): \`${model}.${field}\` has a default Prisma's client computes (uuid(), cuid(), nanoid(), ` +
        'ulid()), which a graph load does not; set it in the input (e.g. `crypto.randomUUID()`).',
    ),

  /** A create input that is not a plain object. */
  graphNotAnObject: (model: string, value: unknown): HiLoConfigurationError =>
    HiLoConfigurationError.invalidOption(`createGraph() data for ${model}`, 'a create input object', value),
};
