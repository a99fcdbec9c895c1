// The messages of the errors hilo-core throws, one factory per mistake (MikroORM's style): a message is written once,
// named after what went wrong, and the code that throws reads as `throw configurationErrors.rangeNeedsTable()`.
// Internal: not exported from any entry point. It sits in the errors layer (it imports errors.ts only), so every
// layer may use it; the values a message names (a redacted URL, a dialect's display name) are computed by the
// caller and passed in. ESLint forbids `new HiLoConfigurationError(` anywhere else in packages/*/src.
import { describe, HiLoConfigurationError } from './errors.js';

/** Factories for the configuration errors hilo-core throws: one per mistake, named after it. */
export const configurationErrors = {
  // engine/

  /** A segment name is empty, too long or holds control characters. */
  invalidSegmentName: (name: string, maxLength: number, value: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected \`${name}\` to be a non-empty name of at most ${maxLength} characters without ` +
        `control characters, e.g. "orders", got ${describe(value)}.`,
    ),

  /** `maxBlockSize` is below `blockSize`. */
  maxBlockSizeBelowBlockSize: (maxBlockSize: number, blockSize: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected \`maxBlockSize\` (${maxBlockSize}) to be at least \`blockSize\` (${blockSize}); raise maxBlockSize or lower blockSize.`,
    ),

  /** A segment's `maxBlockSize` is below its `blockSize`. */
  segmentMaxBlockSizeBelowBlockSize: (
    segment: string,
    maxBlockSize: number,
    blockSize: number,
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected \`segments.${segment}.maxBlockSize\` (${maxBlockSize}) to be at least its blockSize (${blockSize}).`,
    ),

  /** `onStoreBehind: 'lift'` was given with an interop preset's shared `storedKeys`. */
  liftOnSharedStore: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`onStoreBehind: 'lift'\` cannot be used with an interop preset's \`storedKeys\`: the hi store is shared ` +
        `with another system, so a stored key inside a block means the two sides read the store with different ` +
        `settings, and lifting the floor would not change how the other side reads it. Remove \`onStoreBehind\` ` +
        `(a found overlap is a HiLoMismatchError naming the settings to compare).`,
    ),

  /** `onStoreBehind` was given without `storedKeys`. */
  onStoreBehindWithoutStoredKeys: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`onStoreBehind\` applies only with \`storedKeys\`, which tells hilo where the keys are stored; ` +
        `set \`storedKeys\` or remove \`onStoreBehind\`.`,
    ),

  /** `peerCheckMs` was given without a hi store shared with another system. */
  peerCheckWithoutSharedStore: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`peerCheckMs\` applies only with an interop preset's \`storedKeys\` (a hi store shared with another ` +
        `system, \`storedKeys.sharedWith\`): without one there are no peer's keys to probe for. Pass \`storedKeys\` ` +
        `to the preset (e.g. hibernateTablePreset(client, { storedKeys: [...] })) or remove \`peerCheckMs\`.`,
    ),

  // sql/

  /** A table, column, schema or sequence name is not a plain SQL identifier. */
  invalidIdentifier: (role: string, pattern: RegExp, value: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected ${role} name to match ${pattern} (a letter or "_", then letters, digits ` +
        `or "_", at most 63 characters), got ${describe(value)}.`,
    ),

  /** connect() needs a driver package that is not installed. */
  driverNotInstalled: (redactedUrl: string, name: string, cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `connect("${redactedUrl}") needs the \`${name}\` package, which is not installed: run \`npm install ${name}\`.`,
      { cause },
    ),

  // sources/

  /** `synchronousStandby: true` on a database without synchronous replication. */
  synchronousStandbyUnsupported: (database: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`synchronousStandby: true\` needs PostgreSQL's synchronous replication; ${database} has no ` +
        `statement hilo can make wait for a standby. Remove \`synchronousStandby\`.`,
    ),

  // dialects/

  /**
   * An ORM reported a database hilo has no dialect for; `worded` is the adapter's own message for it, used
   * instead of the generic one when given.
   */
  unsupportedDatabase: (got: unknown, spoken: readonly string[], worded: string | undefined): HiLoConfigurationError =>
    new HiLoConfigurationError(
      worded ??
        `Expected a database hilo speaks (${spoken.join(', ')}), got ${describe(got)}; pass a \`client\` on a database hilo supports.`,
    ),

  /** A `mysql:`/`mariadb:` URL, with neither `mysql2` nor `mariadb` installed. */
  noMysqlDriver: (redactedUrl: string, cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `connect("${redactedUrl}") needs a MariaDB/MySQL driver, and neither \`mysql2\` nor \`mariadb\` ` +
        `is installed: run \`npm install mysql2\`.`,
      { cause },
    ),

  /** A `postgres:` URL, with neither `pg` nor `postgres` installed. */
  noPostgresDriver: (redactedUrl: string, cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `connect("${redactedUrl}") needs a PostgreSQL driver, and neither \`pg\` nor \`postgres\` ` +
        `(postgres.js) is installed: run \`npm install pg\`.`,
      { cause },
    ),

  /** A host of a multi-host PostgreSQL URL is not `host` or `host:port`. */
  invalidHostEntry: (redactedHosts: string, entry: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected each host of "${redactedHosts}" as host or host:port (a port from 1 to 65535), got "${entry}".`,
    ),

  /** A PostgreSQL URL asks for a server that refuses writes (`target_session_attrs`). */
  readOnlyTargetSession: (redactedHosts: string, asked: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `"${redactedHosts}" asks for target_session_attrs=${asked}, a server that refuses writes, and hilo reserves ` +
        `blocks, which are writes: use target_session_attrs=read-write (the first host that accepts writes).`,
    ),

  /** A PostgreSQL URL's `target_session_attrs` is none hilo knows. */
  unknownTargetSession: (redactedHosts: string, asked: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected target_session_attrs in "${redactedHosts}" to be read-write, primary or any, got "${asked}".`,
    ),

  /** A postgres.js instance whose `transform` option rewrites the `rewritten` parts of every result. */
  postgresJsTransform: (rewritten: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `postgresJsClient() got a postgres.js instance whose \`transform\` option rewrites ` +
        `${rewritten.map((part) => `${part}s`).join(' and ')} ` +
        `of every result, and hilo reads its own columns by name; ` +
        'give hilo an instance without `transform`, e.g. `postgresJsClient(postgres(url, { max: 2 }), { ownsSql: true })`.',
    ),

  /** hilo's PostgreSQL connection goes through PgBouncer in statement pooling mode. */
  statementPooling: (cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      "hilo's PostgreSQL connection goes through PgBouncer with pool_mode = statement, which refuses transactions " +
        "(what `hilo init --guard`, `floor` and `alter` and a table source's set-up need). Point hilo's URL at a " +
        'pool with pool_mode = transaction or session, or straight at PostgreSQL; reservations themselves are single ' +
        'statements and work in any mode.',
      { cause },
    ),

  /** A `sqlite:` URL without a file. */
  sqliteUrlWithoutFile: (url: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Expected a file after "sqlite:" (e.g. "sqlite:app.db"), got "${url}".`),

  // operations/

  /** connect() got a URL of no scheme hilo opens. */
  unknownUrlScheme: (redactedUrl: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected a URL starting with postgres://, postgresql://, mysql://, mariadb:// or sqlite:, got "${redactedUrl}".`,
    ),

  /** alterBlockSize() on a database without sequences. */
  alterWithoutSequences: (dialect: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `alterBlockSize: ${dialect} has no sequences; a table source takes any block size, so there is nothing to alter.`,
    ),

  /** A sequence source on a database without sequences. */
  noSequences: (database: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`${database} has no sequences: use \`tableSource(client)\` (source: "table") instead.`),

  /** Strategy "range" was asked of a sequence. */
  rangeNeedsTable: (): HiLoConfigurationError =>
    new HiLoConfigurationError('Strategy "range" needs a table: pass source: "table".'),

  /** Strategy "pooled" was asked of a hi table. */
  pooledOnTable: (): HiLoConfigurationError =>
    new HiLoConfigurationError('Tables use strategy "range" for "value = last key"; "pooled" is for sequences.'),

  /**
   * `table` was given for a sequence source; `defaultOn` is the database's display name when the sequence
   * source is its default (no `source` given).
   */
  tableOptionOnSequence: (table: string, defaultOn: string | undefined): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`table: ${JSON.stringify(table)}\` applies to \`source: 'table'\` only, but the source is a sequence per segment` +
        `${defaultOn !== undefined ? ` (the default on ${defaultOn})` : ''}. ` +
        `Set \`source: 'table'\` to use that hi table, or remove \`table\`.`,
    ),

  /** A table the stored keys are checked against is missing (`message` is also the warning's text). */
  storedKeysTableMissing: (message: string): HiLoConfigurationError => new HiLoConfigurationError(message),

  /** A table named in the stored keys to check does not exist. */
  storedTableNotFound: (segment: string, table: string, column: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The keys of segment "${segment}" are to be checked against ${table}.${column}, but table ${table} does ` +
        `not exist, so nothing could be checked. Fix the table name (or give its schema: SCHEMA.TABLE.COLUMN).`,
    ),

  /** A `hilo` sequence is to be checked without the increment it does not record. */
  hiloSequenceNeedsIncrement: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      'A `hilo` sequence advances by 1 and does not record its maxLo: pass `sourceOptions.increment` to check it.',
    ),

  /** Two segments store their keys in one column. */
  columnSharedBySegments: (first: string, second: string, column: string, table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Segments "${first}" and "${second}" both store their keys in ${column}; each counts from its own ` +
        `hi store, so the two would hand out the same keys into one column. Give each key column one segment: ` +
        `use "${first}" for every table definition or entity mapped to ${table}, or store the keys of ` +
        `"${second}" in a column of their own.`,
    ),

  // presets/

  /** An interop preset got a client for a database it does not support. */
  presetDialect: (
    preset: string,
    supported: readonly string[],
    got: string,
    urlExamples: readonly string[],
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The ${preset} preset supports ${supported.join(' or ')} only ` +
        `(that is where ${preset} keeps its hi/lo state), got a client for ${got}. ` +
        `Pass a client from connect() with a ${urlExamples.join(' or ')} URL.`,
    ),

  /** The interop presets' catalog was asked for on a database they do not run on. */
  interopDatabase: (database: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The interop presets run on PostgreSQL and MariaDB, where the other systems keep their hi/lo ` +
        `state; got ${database}.`,
    ),

  /** Hibernate's pooled optimizer with an `incrementSize` below 2. */
  pooledIncrementTooSmall: (incrementSize: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Hibernate preset: \`optimizer: 'pooled'\` with \`incrementSize: ${incrementSize}\` leaves no ` +
        `key that every Hibernate version leaves free ` +
        `(3.6 hands out v − 1, 5+ hands out v). Use \`incrementSize\` ≥ 2, or \`optimizer: 'pooled-lo'\`.`,
    ),

  /** hibernateSequencePreset's `initialValue` other than 1 while hilo creates the sequences. */
  initialValueNeedsCreateFalse: (initialValue: number, step: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `hibernateSequencePreset: \`initialValue: ${initialValue}\` needs \`create: false\`; hilo creates ` +
        `sequences starting at the first block. ` +
        `Create the sequence as Hibernate's schema export does (create sequence … start with ${initialValue} ` +
        `increment by ${step}).`,
    ),

  // adapter-kit/

  /** Two key columns of one segment declare different block sizes. */
  blockSizeConflict: (
    segment: string,
    first: { readonly blockSize: number; readonly where: string | undefined },
    second: { readonly blockSize: number; readonly where: string | undefined },
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Segment "${segment}" gets blockSize ${first.blockSize} from ${first.where ?? 'one key column'} ` +
        `and ${second.blockSize} from ${second.where ?? 'another'}; give them the same blockSize or ` +
        `different segments.`,
    ),

  /** `onStoreBehind` with `verifyBlocks: false`, which leaves nothing to find the store behind. */
  onStoreBehindWithoutVerify: (owner: string, onStoreBehind: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} got \`onStoreBehind: ${JSON.stringify(onStoreBehind)}\` with \`verifyBlocks: false\`, but only a ` +
        `verified block can find the store behind; remove \`verifyBlocks: false\` (verifying is the default) or ` +
        `remove \`onStoreBehind\`.`,
    ),

  /** Hi source layout options given for an in-memory SQLite database, which ignores them. */
  layoutInMemory: (database: string, given: readonly string[], owner: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${database} is in memory (":memory:"), where hilo keeps the counter in this process and ignores ` +
        `${given.map((n) => `\`${n}\``).join(', ')}; ` +
        `remove those options from ${owner}, or use a database file so that a hi table can be shared ` +
        `(or pass \`client\` for a hi source elsewhere).`,
    ),

  /** More than one of the connection options (`list`, quoted) of an adapter that can open its own. */
  tooManyConnectionOptions: (owner: string, list: readonly string[], given: number): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} takes at most one of ${list.slice(0, -1).join(', ')} or ${list.at(-1)}, got ${given}; keep one, ` +
        `or leave them all out for a connection hilo opens by itself.`,
    ),

  /** Not exactly one of `url`, `client` or `generator`; `example` shows the adapter's options. */
  notOneConnectionOption: (owner: string, given: number, example: string | undefined): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} needs exactly one of \`url\`, \`client\` or \`generator\`, got ${given}; pass the database URL, ` +
        `e.g. ${example ?? '{ url: process.env.DATABASE_URL }'}.`,
    ),

  /** A generator passed in, with `verifyBlocks` or `onStoreBehind` (`option`) it would not use. */
  generatorWithVerifyOption: (owner: string, option: 'verifyBlocks' | 'onStoreBehind'): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} got \`generator\` and \`${option}\`, but a ` +
        `generator you pass in is used as you built it; give \`storedKeys\` and \`onStoreBehind\` to ` +
        `createHiLo()/createHiLoGenerator() instead, or pass \`url\` or \`client\` so that hilo builds it.`,
    ),

  /** A generator passed in, with a `keyGuard` hilo has no connection to install. */
  generatorWithKeyGuard: (owner: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} got \`generator\` and \`keyGuard\`, but with a generator you pass in hilo has no connection to ` +
        `install the guard on; install it with ensureKeyGuard(client, targets) from hilo-core (or \`hilo init ` +
        `--guard\`), or pass \`url\` or \`client\` instead of \`generator\`.`,
    ),

  /** A key supply was asked for keys after it was closed; `worded` is the adapter's own message for it. */
  supplyClosed: (owner: string, worded: string | undefined): HiLoConfigurationError =>
    new HiLoConfigurationError(worded ?? `${owner} was closed; create a new one to get more keys.`),
};
