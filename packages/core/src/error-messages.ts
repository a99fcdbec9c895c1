// The messages of the errors hilo-core throws, one factory per mistake (MikroORM's style): a message is written once,
// named after what went wrong, and the code that throws reads as `throw configurationErrors.rangeNeedsTable()`.
// Internal: not exported from any entry point. It sits in the errors layer (it imports errors.ts only), so every
// layer may use it; the values a message names (a redacted URL, a dialect's display name) are computed by the
// caller and passed in. ESLint forbids building these errors with a message anywhere else in packages/*/src.
import {
  describe,
  HiLoConfigurationError,
  HiLoError,
  HiLoExhaustedError,
  HiLoGraphLoadError,
  type GraphLoadFailure,
  HiLoMismatchError,
  HiLoOverflowError,
  HiLoServerUnconfirmedError,
  HiLoSourceError,
  HiLoSourceUnavailableError,
  HiLoSynchronousStandbyError,
  HiLoTimeoutError,
  type HiLoHint,
} from './errors.js';

/** A block's first and last key, as messages name it. */
interface BlockRange {
  readonly first: bigint;
  readonly last: bigint;
}

/** Factories for the configuration errors hilo-core throws: one per mistake, named after it. */
export const configurationErrors = {
  // engine/

  /** The application's `onEvent` handler threw: its error, named as such, not the database's. */
  onEventThrew: (type: string, cause: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The onEvent handler threw while handling a "${type}" event: ` +
        `${cause instanceof Error ? cause.message : String(cause)}. The error is the handler's, not the ` +
        `database's: fix the handler or catch inside it (onEvent must not throw); the keys already reserved are kept.`,
      { cause },
    ),

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

  /** A `sqlite:` or `file:` URL without a file. */
  sqliteUrlWithoutFile: (url: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Expected a file after "sqlite:" or "file:" (e.g. "sqlite:app.db"), got "${url}".`),

  /** A `sqlite:` or `file:` URL naming a folder: a PGlite data folder, most likely. */
  sqliteUrlIsFolder: (url: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `"${url}" names a folder, not a SQLite file. A PGlite database (a data folder) is not opened by URL: pass your ` +
        'instance, `pgliteClient(db)`.',
    ),

  /** A `libsql:` URL: a libSQL server (Turso), which connect() does not open. */
  libsqlServerUrl: (redactedUrl: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `connect() does not open libSQL servers (Turso), got "${redactedUrl}": hilo reserves with a transaction on a ` +
        "connection of its own, which it has not tested over libSQL's protocol. For a local file use " +
        '"file:PATH" or "sqlite:PATH".',
    ),

  // operations/

  /** connect() got a URL of no scheme hilo opens. */
  unknownUrlScheme: (redactedUrl: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Expected a URL starting with postgres://, postgresql://, mysql://, mariadb://, sqlite: or file:, got ` +
        `"${redactedUrl}".` +
        (/^(memory|idb|opfs-ahp):/i.test(redactedUrl)
          ? ' A PGlite database is not opened by URL: pass your instance, `pgliteClient(db)`.'
          : ''),
    ),

  /** `sqliteClient()` got a Cloudflare D1 binding with an option of a SQLite file connection. */
  d1SqliteClientOption: (option: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `sqliteClient() got a Cloudflare D1 binding, which it hands to d1Client(), and \`${option}\`, an option of a ` +
        `SQLite connection to a file (its write lock, its busy timeout, closing it) that D1 does not have: remove ` +
        `\`${option}\`, or call \`d1Client(env.DB)\` yourself.`,
    ),

  /** A PGlite instance where a pool was expected. */
  pgliteNotAPool: (where: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${where} got a PGlite instance, which has one session shared with your application, not a pool: ` +
        'wrap it with `pgliteClient(db)` instead, which never joins your transactions.',
    ),

  /** The table source on a client with one session shared with the application (PGlite). */
  tableSourceSingleSession: (): HiLoConfigurationError =>
    new HiLoConfigurationError(
      "The table source cannot run on PGlite: its one session is your application's, so a reservation there could " +
        "be undone by your transaction's rollback and hand out the same keys again. Use the sequence source " +
        "(`source: 'sequence'`, the default on PostgreSQL): `nextval` is never rolled back.",
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

  /**
   * A hi store shared by tenants (it lives in `store`, not beside the tables) whose segment is checked against
   * only some of the tables of that name (`checked`) while `unchecked` hold them too (DESIGN rule 10).
   */
  storeSharedByTenants: (
    segment: string,
    store: string,
    checked: readonly string[],
    unchecked: readonly string[],
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The hi store of segment "${segment}" lives in schema (database) "${store}", not beside the tables it ` +
        `checks (${checked.join(', ')}), so every tenant whose store is there shares it; but ${unchecked.join(', ')} ` +
        `${unchecked.length === 1 ? 'holds' : 'hold'} the same table and ${unchecked.length === 1 ? 'is' : 'are'} ` +
        `not checked. Once that store falls behind, this process would hand out keys another tenant's table ` +
        `holds. Keep each tenant's store beside its tables (hilo's \`schema\` option set to the tenant's schema ` +
        `or database, the default of an adapter whose tables are all in one schema), or check every tenant's ` +
        `table (\`tenants: '*'\` on the stored-key column, or the adapter's tenant option).`,
    ),

  /** `hilo floor` / `raiseFloor` from one tenant's table while the store is shared by other tenants' tables. */
  floorOneTenant: (segment: string, store: string, from: string, others: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The hi store of segment "${segment}" lives in schema (database) "${store}", not beside ${from}, so other ` +
        `tenants share it, and ${others.join(', ')} ${others.length === 1 ? 'holds' : 'hold'} the same table: a ` +
        `floor above ${from} alone can leave the store below their keys. Raise it above every tenant's table ` +
        `(\`--from '*.${from.split('.').slice(-2).join('.')}'\`, or \`tenants: '*'\` in raiseFloor()), or point ` +
        `the connection at the tenant's own store (its schema or database).`,
    ),

  /** A table the stored keys are checked against is missing (`message` is also the warning's text). */
  storedKeysTableMissing: (message: string): HiLoConfigurationError => new HiLoConfigurationError(message),

  /** A table named in the stored keys to check does not exist. */
  storedTableNotFound: (segment: string, table: string, column: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The keys of segment "${segment}" are to be checked against ${table}.${column}, but table ${table} does ` +
        `not exist, so nothing could be checked. Fix the table name (or give its schema: SCHEMA.TABLE.COLUMN).`,
    ),

  /**
   * A stored-key column holds rows, none of which reads as a key of its kind: the probe would find no stored keys
   * and check nothing (issue 52). `kind` is how the probe reads it (`'string'`, `'format'`), `sample` one row.
   */
  storedKeysUnreadable: (details: {
    readonly where: string;
    readonly segment: string;
    readonly column: string;
    readonly kind: 'string' | 'format';
    readonly prefix: string;
    readonly sample: string;
  }): HiLoConfigurationError => {
    const { where, segment, column, kind, prefix, sample } = details;
    const read =
      kind === 'string'
        ? `decimal keys (e.g. '105', as hilo writes a key kept as a string)`
        : `formatted ids starting with ${JSON.stringify(prefix)} (e.g. '${prefix}105-A', as nextFullId() writes them)`;
    const fix =
      kind === 'string'
        ? `If it holds ids made by nextFullId(), set \`kind: 'format'\` on ${where} (and its \`prefix\` when they do ` +
          `not start with ${JSON.stringify(prefix)})`
        : `Set \`prefix\` on ${where} (or the generator's \`idFormat\`) to what the ids start with, or its \`kind\` ` +
          `to how hilo writes the keys of segment "${segment}"`;
    return new HiLoConfigurationError(
      `${where} names ${column} as the column of segment "${segment}", read as ${read}, but none of its rows ` +
        `reads so (one holds ${JSON.stringify(sample)}): the check of each block against the stored keys would ` +
        `find none and check nothing. ${fix}. If its rows were written in another form by something else and ` +
        `can never equal a key hilo writes, pass \`onUnreadableKeys: 'warn'\` to go on without checking them.`,
    );
  },

  /** `nextFullId()` on a segment whose stored-key column is declared to hold plain numbers. */
  formattedIdsInDecimalColumn: (
    where: string,
    segment: string,
    column: string,
    kind: string,
    prefix: string,
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `nextFullId("${segment}") makes ids like '${prefix}105', but ${where} declares ${column} \`kind: '${kind}'\`, ` +
        `so the check of each block would read no such id and check nothing. Set \`kind: 'format'\` on ${where} ` +
        `(a numeric column stays a numeric probe), or leave \`kind\` out to have it read as nextFullId() writes.`,
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

  /**
   * A `url` (`scheme`, e.g. `file:`) or `client` (no scheme) of a database the adapter does not run on; `why` is the
   * adapter's reason and advice.
   */
  adapterDoesNotRunOn: (
    owner: string,
    database: string,
    scheme: string | undefined,
    why: string,
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `${owner} does not run on ${database} (${
        scheme === undefined ? `\`client\` is a ${database} client` : `\`url\` starts with "${scheme}"`
      }): ${why}`,
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

  // graph/ and the dialects' graph targets

  /** A graph load's `tables` option is empty or not an array. */
  graphNoTables: (value: unknown): HiLoConfigurationError =>
    HiLoConfigurationError.invalidOption('tables', 'a non-empty array of tables ({ table, key, columns })', value),

  /** Two entries of `tables` name the same table. */
  graphDuplicateTable: (table: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `\`tables\` names "${table}" twice; describe each table once, with every column and reference it has.`,
    ),

  /** A reference names a table that is not in `tables`. */
  graphUnknownReference: (table: string, column: string, referenced: string): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The reference ${table}.${column} → "${referenced}" names a table that is not in \`tables\`; add "${referenced}" ` +
        `to \`tables\`, or leave the reference out and fill ${column} yourself.`,
    ),

  /** The tables' references form a cycle none of whose foreign keys is deferrable. */
  graphCycle: (cycle: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The references ${cycle.join(', ')} form a cycle, so no table can be loaded before the others. Make one of ` +
        `these foreign keys DEFERRABLE and mark it \`deferrable: true\`, or load one side in a second step.`,
    ),

  /** The cycle needs deferring, and the database cannot defer constraints. */
  graphCannotDefer: (database: string, cycle: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `The references ${cycle.join(', ')} form a cycle, and ${database} cannot defer foreign keys to the commit; load ` +
        `one side in a second step.`,
    ),

  /** An input item names a table that is not in `tables`. */
  graphUnknownTable: (table: unknown, item: number, known: readonly string[]): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Input item ${item} names table ${describe(table)}, which is not in \`tables\` (${known.map((t) => `"${t}"`).join(', ')}).`,
    ),

  /** An input item's row is not an object. */
  graphBadRow: (table: string, item: number, row: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Input item ${item}: a row of "${table}" must be an object of column values, got ${describe(row)}.`,
    ),

  /** An input row already has a key: keys come from hilo. */
  graphKeyGiven: (table: string, key: string, item: number, value: unknown): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Input item ${item}: a row of "${table}" already has ${key} = ${describe(value)}; a graph load gives every row ` +
        `its key from hilo. Leave ${key} out (the loader writes the key it gives into the row).`,
    ),

  /** A child row cannot be wired to its parent: no reference, or more than one and no `via`. */
  graphNoParentReference: (
    child: string,
    parent: string,
    item: number,
    candidates: readonly string[],
  ): HiLoConfigurationError =>
    new HiLoConfigurationError(
      candidates.length === 0
        ? `Input item ${item}: a "${child}" row is nested under a "${parent}" row, but no reference of "${child}" ` +
            `names "${parent}"; add one to \`tables\` (references: [{ column, table: "${parent}" }]).`
        : `Input item ${item}: a "${child}" row is nested under a "${parent}" row, and ${candidates.join(', ')} all ` +
            `reference "${parent}"; name the column with \`via\`.`,
    ),

  /** The target table does not exist (or is not visible on the connection's search path). */
  graphTableMissing: (database: string, table: { table: string; schema: string | undefined }): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `Table ${table.schema === undefined ? '' : `${table.schema}.`}${table.table} was not found in ${database}; ` +
        `create it first, or give its \`schema\`.`,
    ),

  /** A row of a graph load sets a column the load does not write (`defaulted`: one with a default, not listed). */
  graphColumnNotWritten: (table: string, column: string, defaulted: boolean): HiLoConfigurationError =>
    new HiLoConfigurationError(
      `A row of "${table}" in a graph load sets "${column}", which the load does not write: ` +
        (defaulted
          ? `the column has a default in the database, so it is written only when listed in the table's ` +
            `\`columns\` (e.g. \`tables: { ${table}: { columns: [..., '${column}'] } }\`; then every row writes it, ` +
            `NULL when left out).`
          : `the table has no such column, or its \`columns\` leave it out. Check the row, or the table's \`columns\`.`),
    ),

  /** A column to load does not exist in its table. */
  graphColumnMissing: (table: { table: string }, column: string): HiLoConfigurationError =>
    new HiLoConfigurationError(`Table ${table.table} has no column "${column}"; check the table's \`columns\`.`),
};

/** Factories for the errors of a hi source that answered wrongly or refused: one per mistake, named after it. */
export const sourceErrors = {
  /** A reservation on PGlite while the application's transaction holds its one session. */
  pgliteInTransaction: (): HiLoSourceError =>
    new HiLoSourceError(
      "PGlite's one session is inside your application's transaction, and a reservation there would wait for that " +
        'transaction, which waits for the keys. Reserve before the transaction starts: `await hilo.warm()` at ' +
        'start-up, or `ensure(count)` (adapters: `ensure()`) for the keys the transaction will use.',
    ),

  // operations/column-registry.ts

  /** A segment's column is being moved to it by `hilo move`, which has not raised its store yet: wait. */
  columnBeingMoved: (column: string, from: string, to: string): HiLoSourceError =>
    new HiLoSourceError(
      `Column ${column} is being moved from segment "${from}" to "${to}" by \`hilo move\`, which raises "${to}" ` +
        `above "${from}" before "${to}" may hand out keys; tried again until it is done. If no \`hilo move\` is ` +
        `running, finish the interrupted one: \`hilo move --url URL ${column} --to ${to}\`.`,
      // retried like a conflict another transaction won: the server answered, nothing says it went away
      { conflict: true },
    ),

  /** `hilo move` could not create the column registry. */
  columnRegistryMissing: (table: string): HiLoSourceError =>
    new HiLoSourceError(
      `Could not create ${table}, where hilo records which segment keys each column; run \`hilo move\` with a ` +
        `role that may create tables (or \`hilo init\` first).`,
    ),

  // engine/

  /** A hi source returned no block at all. */
  noBlock: (source: string, segment: string): HiLoSourceError =>
    new HiLoSourceError(`Hi source ${source} returned no block for segment "${segment}".`),

  /** A hi source returned a block that is not two bigints in order. */
  invalidBlock: (source: string, segment: string, first: unknown, last: unknown): HiLoSourceError =>
    new HiLoSourceError(
      `Hi source ${source} returned an invalid block for "${segment}": [${String(first)}, ${String(last)}].`,
    ),

  /** A hi source returned a block not above a key already reserved: its store went backwards. */
  notAboveReserved: (source: string, segment: string, block: BlockRange, previous: bigint): HiLoSourceError =>
    new HiLoSourceError(
      `Hi source ${source} returned block [${block.first}, ${block.last}] for segment "${segment}", not ` +
        `above key ${previous} already reserved by this process: the store went backwards. Either a reservation ` +
        `was rolled back with a transaction of yours it ran in (a client that shares your application's ` +
        `connection or transaction: give hilo a connection of its own, \`connect(url)\` or a pool), or the sequence ` +
        `or table row was moved back by hand. Raise it with \`hilo floor\` before continuing.`,
    ),

  /**
   * After a failover the store is still not above the keys reserved before it; `raises` is how often hilo raised
   * it, `undefined` when the source cannot. Only a change by hand cures it: not retryable.
   */
  notAboveFloorAfterFailover: (
    source: string,
    segment: string,
    blocks: BlockRange,
    floor: bigint,
    raises: number | undefined,
  ): HiLoSourceError =>
    new HiLoSourceError(
      `Hi source ${source} returned block [${blocks.first}, ${blocks.last}] ` +
        `for segment "${segment}" after a failover, not above key ${floor} reserved before it` +
        (raises === undefined ? ', and it cannot raise its store. ' : ` after ${raises} raises. `) +
        `Move the store of segment "${segment}" above key ${floor} by hand (the sequence's next value, or ` +
        `the hi table's row); \`hilo floor ${segment} --from TABLE.COLUMN\` does it once every key handed ` +
        `out before is stored in that column.`,
      { retryable: false },
    ),

  /** A hi source threw a plain error: an unknown outcome, worth a retry. */
  sourceFailed: (source: string, cause: unknown): HiLoSourceError =>
    new HiLoSourceError(`Hi source ${source} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      retryable: true,
    }),

  // sql/

  /** A concurrent transaction won (a deadlock, a Galera certification conflict): retryable, a conflict. */
  concurrentTransactionWon: (action: string, detail: string, cause: unknown): HiLoSourceError =>
    new HiLoSourceError(
      `A concurrent transaction won while ${action}: ${detail}. The reservation is retried and its outcome ` +
        `discarded.`,
      { cause, conflict: true },
    ),

  /** A hi/lo table or sequence the statement needs is missing. */
  objectMissing: (action: string, detail: string, cause: unknown, hint: HiLoHint): HiLoSourceError =>
    new HiLoSourceError(`A hi/lo table or sequence is missing while ${action}: ${detail}.`, { cause, hint }),

  /** Any other driver error. */
  databaseFailed: (action: string, detail: string, cause: unknown): HiLoSourceError =>
    new HiLoSourceError(`The database failed while ${action}: ${detail}.`, { cause }),

  // sources/

  /** A value read from the database is not an integer. */
  notAnInteger: (what: string, value: unknown): HiLoSourceError =>
    new HiLoSourceError(`Expected ${what} to be an integer, got ${String(value)}. Is the column an integer type?`),

  /** A segment's row is missing from the hi table (and hilo may not create it). */
  segmentRowMissing: (segment: string, table: string, hint: HiLoHint): HiLoSourceError =>
    new HiLoSourceError(`Segment "${segment}" has no row in ${table}.`, { hint }),

  /** A segment's row is still missing right after hilo inserted it. */
  segmentRowMissingAfterInsert: (segment: string, table: string): HiLoSourceError =>
    new HiLoSourceError(`Segment "${segment}" has no row in ${table} even after inserting it.`),

  /** A segment's sequence does not exist (and hilo may not create it). */
  sequenceMissing: (sequence: string, segment: string, hint: HiLoHint): HiLoSourceError =>
    new HiLoSourceError(`Sequence ${sequence} of segment "${segment}" does not exist.`, { hint }),

  // dialects/

  /** Another process held hilo's DDL lock on MariaDB/MySQL too long while the key guard was installed. */
  ddlLockHeld: (lock: string, waitSeconds: number): HiLoSourceError =>
    new HiLoSourceError(
      `Another process held hilo's DDL lock "${lock}" for more than ${waitSeconds} ` +
        `s while installing the key guard; run it again.`,
    ),

  /** Another process held a preset's named lock too long: worth trying again, like a lock wait timeout. */
  namedLockHeld: (lock: string): HiLoSourceError =>
    new HiLoSourceError(
      `Another process held the named lock ${JSON.stringify(lock)} for more than 60 s; run it again.`,
      {
        retryable: true,
      },
    ),

  /** A sequence source on a MariaDB Galera Cluster node, where nextval() is not unique across nodes. */
  galeraSequence: (what: string): HiLoSourceError =>
    new HiLoSourceError(
      `${what} is on a MariaDB Galera Cluster node (@@wsrep_on is ON), where a sequence's nextval() is not unique ` +
        `across nodes: two nodes return the same values without an error, so keys would be handed out twice.`,
      {
        hint: {
          library:
            "Use the table source (`source: 'table'`, or `tableSource(client)`), whose one-row UPDATE Galera " +
            'certifies across nodes (see "Galera" in the hilo-core README).',
          cli: 'Use the table source (`--source table`), whose one-row UPDATE Galera certifies across nodes.',
        },
      },
    ),

  /** A reservation on a Galera node whose session has `wsrep_on` OFF. */
  wsrepOff: (what: string): HiLoSourceError =>
    new HiLoSourceError(
      `${what} is on a MariaDB Galera Cluster node, and this connection's session has wsrep_on=OFF (@@session.wsrep_on ` +
        `is 0): its writes stay on this node, neither replicated nor certified, so two nodes could reserve the same ` +
        `keys. Nothing was reserved.`,
      {
        hint: {
          library:
            "Remove `SET SESSION wsrep_on=OFF` (or `wsrep_on=0`) from the pool's init statements and from code that " +
            'shares the pool with hilo, or give hilo a pool of its own whose sessions keep wsrep_on ON; after `SET ' +
            'GLOBAL wsrep_on=OFF` on the node, set it ON again (see "Galera" in the hilo-core README).',
          cli:
            "Remove `SET wsrep_on=OFF` from the server's `init_connect`, which runs it for the CLI's connections too, " +
            'or set `wsrep_on` ON again globally on the node.',
        },
      },
    ),

  /** The SQLite connection given to hilo is inside a transaction a reservation would join. */
  sqliteInTransaction: (): HiLoSourceError =>
    new HiLoSourceError(
      'The SQLite connection given to hilo is inside a transaction, which a reservation would join. ' +
        'Give hilo a connection of its own: `connect("sqlite:app.db")` or `sqliteClient(new Database("app.db"))`.',
    ),

  /** A hi source needs several statements in one transaction on a SQLite connection with `lockHeldHere`. */
  sqliteOneStatementOnly: (): HiLoSourceError =>
    new HiLoSourceError(
      "This SQLite connection shares its thread with the application's own connection (`lockHeldHere`), " +
        'so hilo runs each reservation as a single statement ' +
        '(a transaction held across awaits would stall that connection), but this hi source needs several in one transaction; ' +
        "use hilo-core's SQLite table source (source: 'table'), or give hilo a connection of its own: `connect('sqlite:app.db')`.",
    ),

  /** A transaction on a Cloudflare D1 client (`d1Client`) needs a second statement, which D1 cannot join to the first. */
  d1OneStatementOnly: (): HiLoSourceError =>
    new HiLoSourceError(
      'Cloudflare D1 has no interactive transactions (BEGIN is refused; each statement commits on its own), so ' +
        "d1Client() runs a transaction's first statement as a transaction of its own, and refuses this second one " +
        "before it runs (the first stays committed). Reservations need one statement: use hilo-core's SQLite table " +
        "source (source: 'table', the default on SQLite); run statements known up front with `client.batch([...])` " +
        "(D1's batch(): all or none).",
    ),

  // operations/

  /** A column the key guard is to be installed on cannot take it (`reason` says why). */
  cannotGuard: (column: string, segment: string, reason: string): HiLoSourceError =>
    new HiLoSourceError(`Cannot guard ${describe(column)} (segment ${describe(segment)}): ${reason}.`),

  /** hilo could not install its key guard on SQLite; retryable when the failure was. */
  sqliteGuardNotInstalled: (columns: string, cause: unknown): HiLoSourceError =>
    new HiLoSourceError(
      `hilo could not install its key guard on SQLite (${columns}), the trigger that refuses a row inserted without ` +
        `a key instead of letting it take a rowid hilo hands out later: ${(cause as Error).message} Fix that, or ` +
        `turn the guard off with \`keyGuard: false\` (a forgotten install then writes rowid keys).`,
      { cause, retryable: cause instanceof HiLoError ? cause.retryable : false },
    ),

  /** alterBlockSize() on a sequence that does not exist. */
  alterSequenceMissing: (sequence: string, segment: string): HiLoSourceError =>
    new HiLoSourceError(
      `Sequence ${sequence} of segment "${segment}" does not exist. Run \`hilo init ${segment}\` first.`,
    ),

  // presets/

  /** The other system's hi/lo table does not exist. */
  storeMissing: (description: string, hint: HiLoHint): HiLoSourceError =>
    new HiLoSourceError(`${description} does not exist.`, { hint }),

  /** NHibernate's hi/lo table does not have exactly one row (where `row` says) to prepare. */
  notOneRow: (
    description: string,
    row: { readonly column: string; readonly value: string } | undefined,
    found: number,
    hint: HiLoHint,
  ): HiLoSourceError =>
    new HiLoSourceError(
      `${description} must have exactly one row${row === undefined ? '' : ` where ${row.column} = ${JSON.stringify(row.value)}`}, ` +
        `found ${found}.`,
      { hint },
    ),

  /** NHibernate's hi/lo table does not have exactly one row to read while reserving. */
  notOneRowToRead: (description: string, found: number, hint: HiLoHint): HiLoSourceError =>
    new HiLoSourceError(`${description} must have exactly one row to read, found ${found}.`, { hint }),

  /** Hibernate's table has no row for the segment and hilo may not create it. */
  hibernateRowMissing: (description: string, key: string, rowStart: bigint): HiLoSourceError =>
    new HiLoSourceError(
      `${description} has no row ${JSON.stringify(key)}. Insert (${JSON.stringify(key)}, ${rowStart}) ` +
        `as Hibernate does, or pass \`create: true\`.`,
    ),

  /** Hibernate's table lost the segment's row between preparing and reserving. */
  hibernateRowGone: (description: string, key: string): HiLoSourceError =>
    new HiLoSourceError(`${description} has no row ${JSON.stringify(key)}. Pass \`create: true\` or insert it.`),

  /** Hibernate's table holds null as the segment's value. */
  hibernateValueNull: (description: string, column: string, key: string): HiLoSourceError =>
    new HiLoSourceError(`${description}: ${column} of row ${JSON.stringify(key)} is null.`),
};

/** Factories for the errors of a database that cannot be reached or cannot answer now (retryable): one per case. */
export const sourceUnavailableErrors = {
  // engine/

  /** warm() could not reserve a segment's first keys. */
  startupFailed: (segment: string, source: string, cause: unknown): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `Could not reserve keys for segment "${segment}" at start-up from ${source}: ` +
        `${cause instanceof Error ? cause.message : String(cause)} Check that the database is running and reachable.`,
      { cause },
    ),

  // sql/

  /** A transient driver error: the connection was refused or lost, a timeout, a lock wait. */
  unreachable: (action: string, detail: string, cause: unknown): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `The database could not be reached while ${action}: ${detail}. Check that it runs and ` +
        `accepts connections; the reservation is retried and its outcome discarded.`,
      { cause },
    ),

  // dialects/

  /** MariaDB/MySQL: the SELECT after a reservation ran on another connection than its UPDATE. */
  connectionChanged: (expected: bigint): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `The connection changed between reserving keys (value ${expected}) and reading the server that reserved ` +
        `them; the block is discarded.`,
    ),

  /** No host of a multi-host PostgreSQL URL accepts writes (`seen` says what each one answered). */
  noWritableHost: (targetSessionAttrs: string, seen: readonly string[]): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `No host of the URL's list accepts writes now (target_session_attrs=${targetSessionAttrs}): ` +
        `${seen.join('; ')}. A failover may be under way; the reservation is retried within its timeout.`,
    ),

  /** The host chosen from a multi-host PostgreSQL URL stopped accepting writes twice while connecting. */
  hostStoppedAcceptingWrites: (targetSessionAttrs: string): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `The host chosen from the URL's list stopped accepting writes twice while connecting ` +
        `(target_session_attrs=${targetSessionAttrs}); a failover may be under way, and the reservation is ` +
        `retried within its timeout.`,
    ),

  /**
   * SQLite's write lock is busy while a transaction of this process is open on the application's connection:
   * retried for as long as a statement would wait for another connection's lock, asynchronously.
   */
  sqliteLockHeldHere: (busyTimeoutMs: number, cause: unknown): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      "SQLite's write lock is held while a transaction of this process is open on the application's own connection to the file. " +
        'Either another connection holds it for a moment, and the reservation is retried asynchronously (up to the busy timeout, ' +
        `${busyTimeoutMs} ms) so this thread stays free to run that transaction; or that transaction ` +
        `has written, and SQLite has one writer: ` +
        "hilo's reservation cannot commit before it ends. " +
        'Have the keys in memory before the transaction writes — `await generator.ensure(segment, n)`, ' +
        'or a larger blockSize — or run the write outside the transaction.',
      { cause, retryWithinMs: busyTimeoutMs },
    ),

  /** A SQLite database file cannot be opened (a missing folder, an unreadable file). */
  sqliteCannotOpen: (path: string, cause: unknown): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `Cannot open the SQLite database "${path}": ${(cause as Error).message}. Check that its folder exists and is writable.`,
      { cause },
    ),

  // presets/

  /** Every compare-and-set attempt on Marten's table lost to other writers. */
  compareAndSetLost: (description: string, attempts: number, entity: string): HiLoSourceUnavailableError =>
    new HiLoSourceUnavailableError(
      `${description}: ${attempts} compare-and-set attempts on entity "${entity}" all lost to other ` +
        `writers. Raise \`attempts\` or the block size.`,
    ),
};

/** Factories for the timeouts hilo-core throws: one per case. */
export const timeoutErrors = {
  /** A reservation attempt took longer than `timeoutMs` and was abandoned. */
  attemptTimedOut: (segment: string, source: string, timeoutMs: number): HiLoTimeoutError =>
    new HiLoTimeoutError(
      `Reserving keys for segment "${segment}" from ${source} took longer ` +
        `than ${timeoutMs} ms; the attempt was abandoned and any block it gets is discarded.`,
    ),

  /** The check of the keys in hand against tenants found since (a block boundary of an awaited draw) took too long. */
  recheckTimedOut: (segment: string, timeoutMs: number): HiLoTimeoutError =>
    new HiLoTimeoutError(
      `Checking the keys in hand of segment "${segment}" against the tenants' tables found since they were ` +
        `reserved took longer than ${timeoutMs} ms; no key of them was handed out.`,
    ),

  /** A statement was aborted (its signal fired) with an unknown outcome. */
  aborted: (action: string, cause: unknown): HiLoTimeoutError =>
    new HiLoTimeoutError(`Aborted while ${action}; the outcome is unknown and any block it got is discarded.`, {
      cause,
    }),
};

/** What made a reservation give up, for {@link exhaustedErrors}. */
export type ReservationLimit = { readonly retries: number } | { readonly retryBudgetMs: number } | 'cut-short';

/** Factories for the errors of reservations that kept failing: one per case. */
export const exhaustedErrors = {
  /** Retries or the retry budget ran out (or retrying stopped helping); `cause` is the last failure. */
  reservationGaveUp: (
    segment: string,
    source: string,
    attempts: number,
    elapsedMs: number,
    limit: ReservationLimit,
    cause: unknown,
  ): HiLoExhaustedError => {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const why =
      typeof limit === 'object' && 'retries' in limit
        ? `the limit set by \`retries\` (${limit.retries}): ${reason} Raise \`retries\` to try longer.`
        : limit === 'cut-short'
          ? `as long as retrying this error can help: ${reason}`
          : `the limit set by \`retryBudgetMs\` (${limit.retryBudgetMs} ms): ${reason} Raise \`retryBudgetMs\` ` +
            `to wait longer for the database.`;
    return new HiLoExhaustedError(
      `Could not reserve keys for segment "${segment}" from ${source} after ` +
        `${attempts} attempts in ${elapsedMs} ms, ${why}`,
      { cause },
    );
  },
};

/** Factories for the keys that do not fit where they go: one per case. */
export const overflowErrors = {
  /** With `keyType: 'number'`, a segment reached a key above Number.MAX_SAFE_INTEGER. */
  aboveSafeInteger: (segment: string, firstRefused: bigint): HiLoOverflowError =>
    new HiLoOverflowError(
      `Segment "${segment}" reached key ${firstRefused}, above Number.MAX_SAFE_INTEGER (${Number.MAX_SAFE_INTEGER}). ` +
        `Use keyType: "bigint" to go on.`,
    ),

  /** A key is above the largest its field or column holds; `widen` is the adapter's fix, if it has one. */
  keyAboveMax: (
    key: number | bigint,
    where: string,
    column: string | undefined,
    maxKey: bigint,
    widen: string | undefined,
  ): HiLoOverflowError =>
    new HiLoOverflowError(
      `Key ${key} does not fit ${where}${column === undefined ? '' : `, ${column}`} ` +
        `(at most ${maxKey}); ${widen ?? 'use a bigint column'}.`,
    ),

  /** A key beyond Number.MAX_SAFE_INTEGER for a number field; `asBigint` is the adapter's fix, if it has one. */
  keyBeyondSafeInteger: (key: bigint, where: string, asBigint: string | undefined): HiLoOverflowError =>
    new HiLoOverflowError(
      `Key ${key} for ${where} is beyond Number.MAX_SAFE_INTEGER and cannot be held as a number; ` +
        `${asBigint ?? `declare ${where} as a bigint field (mode: 'bigint')`}.`,
    ),
};

/** A key another system stored where a preset read a block from the shared store, for {@link mismatchErrors}. */
interface PeerOverlap {
  readonly segment: string;
  readonly stored: { readonly table: string; readonly column: string; readonly key: bigint };
  readonly block: BlockRange;
  readonly where: 'start' | 'block' | 'in-hand';
  readonly counted?: { readonly keys: bigint; readonly handedOut: bigint } | undefined;
}

/** What a preset says about itself in a mismatch: the settings it was given and what most likely differs. */
export interface PeerSettings {
  /** The preset's name, e.g. `hibernateTablePreset`. */
  readonly preset: string;
  /** The other system, e.g. `Hibernate`. */
  readonly peer: string;
  /** The shared object, e.g. `row "orders" of hibernate_sequences`. */
  readonly store: (segment: string) => string;
  /** The options as the preset read them, e.g. "`optimizer: 'pooled'`, `incrementSize: 20`". */
  readonly settings: string;
  /** Likely causes when the peer's keys lie above what the preset reads from a value (found in a new block). */
  readonly ahead: readonly string[];
  /** Likely causes when the peer's keys lie below it (found in a block hilo still holds). */
  readonly behind: readonly string[];
}

/** Factories for the database objects that disagree with the configuration: one per mistake, named after it. */
export const mismatchErrors = {
  // operations/column-registry.ts

  /** A segment claims a key column the store records for another segment (DESIGN rule 13). */
  columnKeyedByOtherSegment: (
    column: string,
    keyedBy: string,
    claimedBy: string,
    movedAway: boolean,
  ): HiLoMismatchError =>
    new HiLoMismatchError(
      `Column ${column} is keyed by segment "${keyedBy}" (recorded in hilo_columns), and segment "${claimedBy}" ` +
        `of this process claims it too: ${movedAway ? `it was moved from "${claimedBy}" to "${keyedBy}" (\`hilo move\`), so ` : ''}` +
        `two segments counting into one column would hand out the same keys. No key of "${claimedBy}" was handed out. ` +
        (movedAway
          ? `Stop the processes still using segment "${claimedBy}" for ${column}; use "${keyedBy}".`
          : `If "${claimedBy}" is a new name for "${keyedBy}" (a deploy that renamed the segment), move the column ` +
            `first: \`hilo move --url URL ${column} --to ${claimedBy}\` starts "${claimedBy}" above "${keyedBy}" and ` +
            `every stored key. If the column was moved from "${claimedBy}" to "${keyedBy}", stop the processes still ` +
            `using "${claimedBy}". Otherwise give ${column} the segment "${keyedBy}".`),
      undefined,
      { column, keyedBy, claimedBy },
    ),

  /** `hilo move` found another move of the column still unfinished. */
  columnMoveUnfinished: (column: string, from: string, to: string, wanted: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `Column ${column} is still being moved from segment "${from}" to "${to}" by an unfinished \`hilo move\`; ` +
        `finish that one first (\`hilo move --url URL ${column} --to ${to}\`), then move it to "${wanted}".`,
      undefined,
      { column, keyedBy: to, claimedBy: wanted },
    ),

  // sources/

  /** Strategy "hilo" on a sequence whose INCREMENT BY is not 1. */
  hiloNeedsIncrementOne: (sequence: string, actual: bigint, increment: bigint): HiLoMismatchError =>
    new HiLoMismatchError(
      `Sequence ${sequence} has INCREMENT BY ${actual}, but strategy "hilo" needs a sequence that advances ` +
        `by 1 (keys are value × ${increment}). ` +
        `Use strategy "pooled-lo" (each value is a block of ${actual} keys), or a sequence with INCREMENT BY 1.`,
    ),

  /** A shared sequence's INCREMENT BY differs from the option (`option`) the other application derives blocks from. */
  fixedIncrementDiffers: (sequence: string, actual: bigint, option: string, increment: bigint): HiLoMismatchError =>
    new HiLoMismatchError(
      `Sequence ${sequence} has INCREMENT BY ${actual}, but \`${option}\` is ${increment}; the ` +
        `other application sharing it derives its blocks from ${option}, so a difference could ` +
        `hand out duplicate keys (efcore.pg #843). ` +
        `Set \`${option}: ${actual}\`, or change the sequence and every application sharing it together.`,
    ),

  /** A sequence that does not ascend. */
  notAscending: (sequence: string, actual: bigint, increment: bigint, segment: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `Sequence ${sequence} has INCREMENT BY ${actual}; hilo needs an ascending sequence. Recreate it, ` +
        `or run \`hilo alter --block-size ${increment} ${segment}\`.`,
    ),

  // presets/

  /** Another system stored a key where the preset read a block from the store they share. */
  peerOverlap: (peer: PeerSettings, overlap: PeerOverlap): HiLoMismatchError => {
    const { segment, stored, block, where } = overlap;
    const at = `${stored.table}.${stored.column}`;
    const store = peer.store(segment);
    const found =
      where === 'start'
        ? `${at} already holds key ${stored.key}, not below the first block hilo read from ${store} (${block.first}…${block.last})`
        : where === 'block'
          ? `${at} holds key ${stored.key} inside the block ${block.first}…${block.last} hilo read from ${store}`
          : overlap.counted === undefined
            ? `${at} holds key ${stored.key} inside the block ${block.first}…${block.last} hilo read from ${store} and had ` +
              `not handed out that key`
            : `${at} holds ${overlap.counted.keys} keys (up to ${stored.key}) of the block ${block.first}…${block.last} hilo ` +
              `read from ${store}, more than the ${overlap.counted.handedOut} hilo handed out of it`;
    const direction =
      where === 'in-hand'
        ? `${peer.peer} writes keys below those hilo reads from the same values`
        : `${peer.peer} hands out keys above those hilo reads from the same values`;
    const causes = where === 'in-hand' ? peer.behind : peer.ahead;
    return new HiLoMismatchError(
      `${peer.preset}: ${found}. ${direction}: the two read the store with different settings. Most likely ` +
        `${causes.join('; or ')}. The preset has ${peer.settings}. Segment "${segment}" is refused: no key of that ` +
        `block (or of any block in hand) is handed out. Set the preset's options to ${peer.peer}'s and restart.` +
        (where === 'in-hand'
          ? ` Keys hilo handed out from that block before may be stored by ${peer.peer} too: look for duplicates.`
          : ''),
      { segment, table: stored.table, column: stored.column, block, storedKey: stored.key },
    );
  },

  /** The object a preset is to share is not a sequence (`kind` says what it is). */
  notASequence: (preset: string, sequence: string, kind: string, fix: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `${preset}: ${sequence} is a ${kind}, not a sequence, so its values are not what the preset reads. ${fix}`,
    ),

  /** A shared sequence is declared CYCLE. */
  sequenceCycles: (preset: string, sequence: string, fix: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `${preset}: sequence ${sequence} is declared CYCLE: after its maximum it returns to its minimum, ` +
        `and every key would be handed out again. ` +
        `Alter it to NO CYCLE (\`alter sequence ${sequence} no cycle\`) in every application sharing it. ${fix}`,
    ),

  /** Marten's table does not have Marten's shape (`problems` lists how). */
  martenTableShape: (table: string, problems: readonly string[]): HiLoMismatchError =>
    new HiLoMismatchError(
      `martenPreset: ${table} is not Marten's hi/lo table (${problems.join(', ')}). Marten creates ` +
        `mt_hilo(entity_name varchar primary key, hi_value bigint); ` +
        `point \`schema\` at the schema of your DocumentStore (StoreOptions.DatabaseSchemaName), or let Marten create its schema.`,
    ),

  /** NHibernate's table does not keep its hi in an integer column. */
  nhibernateTableShape: (table: string, problem: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `nhibernatePreset: ${table} is not NHibernate's hi/lo table (${problem}). NHibernate's TableHiLoGenerator ` +
        `keeps its hi in an integer column; ` +
        `point \`table\`, \`column\` (and \`schema\`) at the table and column of your mapping's <generator class="hilo"> parameters.`,
    ),

  /** A value Hibernate's pooled optimizers never read with the preset's settings (`names` says where and whose). */
  unalignedValue: (
    names: {
      readonly preset: string;
      readonly what: string;
      readonly settings: string;
      readonly causes: readonly string[];
    },
    value: bigint,
    initialValue: bigint,
    incrementSize: bigint,
    offset: bigint,
  ): HiLoMismatchError =>
    new HiLoMismatchError(
      `${names.preset}: ${names.what} ${value}, but with ${names.settings} Hibernate only ever reads ` +
        `${initialValue} plus a multiple of ${incrementSize}, and ${value} − ${initialValue} = ${offset} is not one. ` +
        `Hibernate advances it with other settings: most likely ${names.causes.join('; or ')}. No key was handed ` +
        `out from it, and the segment stays refused. Set the preset's options to Hibernate's and restart.`,
    ),

  /** hibernateSequencePreset's sequence is a table (Hibernate 3.x–5.2's MySQL dialects). */
  hibernateSequenceIsTable: (sequence: string): HiLoMismatchError =>
    new HiLoMismatchError(
      `hibernateSequencePreset: ${sequence} is a table, not a sequence. Hibernate 3.x–5.2's MySQL dialects have no sequences, so its ` +
        `SequenceStyleGenerator keeps a one-row table named like the sequence, which hilo does not share. ` +
        `Match Hibernate with a real sequence (MariaDB103Dialect, Hibernate ≥ 5.3) and this preset, ` +
        `or with Hibernate's TableGenerator and hibernateTablePreset.`,
    ),

  /** hibernateSequencePreset's sequence advances by another step than the options need (`needs`). */
  hibernateIncrement: (
    sequence: string,
    actual: bigint,
    optimizer: string,
    incrementSize: number,
    needs: bigint,
  ): HiLoMismatchError => {
    const matching =
      actual === 1n
        ? `\`{ optimizer: 'legacy-hilo', incrementSize: ${Math.max(incrementSize - 1, 0)} }\` (Hibernate ` +
          `3.x/4.x \`@SequenceGenerator(allocationSize = ${incrementSize})\` ` +
          `without hibernate.id.new_generator_mappings: SequenceHiLoGenerator, max_lo ${Math.max(incrementSize - 1, 0)}; ` +
          `also \`hilo\`/\`seqhilo\` with max_lo), ` +
          `or \`{ optimizer: 'hilo', incrementSize: ${incrementSize} }\``
        : `\`{ optimizer: 'pooled', incrementSize: ${actual} }\` or \`{ optimizer: 'pooled-lo', incrementSize: ` +
          `${actual} }\` (whichever optimizer Hibernate uses)`;
    return new HiLoMismatchError(
      `hibernateSequencePreset: sequence ${sequence} has INCREMENT BY ${actual}, but \`{ optimizer: ` +
        `'${optimizer}', incrementSize: ${incrementSize} }\` needs ${needs}; ` +
        `sharing it could hand out duplicate keys. Options that match it: ${matching}.`,
    );
  },

  /** hibernateTablePreset's table is not the enhanced TableGenerator's (`problems` lists how). */
  hibernateTableShape: (table: string, problems: readonly string[]): HiLoMismatchError =>
    new HiLoMismatchError(
      `hibernateTablePreset: ${table} is not the table of Hibernate's enhanced TableGenerator (${problems.join(', ')}). ` +
        `An int value column without a primary key is Hibernate 3.x/4.x's MultipleHiLoPerTableGenerator (JPA @TableGenerator without ` +
        `hibernate.id.new_generator_mappings=true), whose value is a hi, not a key; no hilo preset shares it. ` +
        `Set hibernate.id.new_generator_mappings=true in Hibernate (its TableGenerator is what this ` +
        `preset follows), or point \`table\`, ` +
        `\`segmentColumn\` and \`valueColumn\` at a table of that shape.`,
    ),
};

/** Factories for the errors of a server that cannot confirm the keys in memory yet: one per case. */
export const serverUnconfirmedErrors = {
  /** The server behind a source is in recovery (a standby not promoted yet). */
  inRecovery: (source: string): HiLoServerUnconfirmedError =>
    new HiLoServerUnconfirmedError(
      `The server behind ${source} is in recovery (a standby not promoted yet, e.g. during a switchover): ` +
        `keys in memory are held back until the server that takes writes answers.`,
    ),
};

/** Factories for the errors of `synchronousStandby: true` without a standby to confirm a reservation. */
export const synchronousStandbyErrors = {
  /** The dialect found a problem with the synchronous standby (`problem` is its wording). */
  found: (problem: string, retryable: boolean): HiLoSynchronousStandbyError =>
    new HiLoSynchronousStandbyError(problem, { retryable }),

  /** A reservation statement reported that its server had no synchronous standby: its keys are discarded. */
  reservedWithoutStandby: (): HiLoSynchronousStandbyError =>
    new HiLoSynchronousStandbyError(
      'the reservation ran on a server without one (`synchronous_standby_names` empty or no synchronous standby ' +
        'streaming: a failover manager such as Patroni empties it while the standby is away, unless ' +
        '`synchronous_mode_strict` is on); its keys are discarded, and reservations wait until a standby confirms them.',
      { retryable: true },
    ),

  /** An earlier reservation has been waiting `ms` for the standby to confirm it. */
  earlierStillWaiting: (ms: number): HiLoSynchronousStandbyError =>
    new HiLoSynchronousStandbyError(
      `an earlier reservation has been waiting ${ms} ms for the standby to confirm it (the standby lags or ` +
        `its connection hangs).`,
      { retryable: true },
    ),
};

function where(failure: GraphLoadFailure): string {
  const parts = [
    failure.table === undefined ? undefined : `table ${failure.table}`,
    failure.item === undefined ? undefined : `input item ${failure.item}`,
    failure.key === undefined ? undefined : `key ${String(failure.key)}`,
    failure.column === undefined ? undefined : `column ${failure.column}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

const ROLLED_BACK = 'Nothing of this load was written; its keys count as lost.';

/** Factories for {@link HiLoGraphLoadError}: a graph load failed and rolled back. */
export const graphLoadErrors = {
  /** A value the encoder cannot write into its column. */
  badValue: (failure: GraphLoadFailure, expected: string, value: unknown): HiLoGraphLoadError =>
    new HiLoGraphLoadError(
      failure,
      `Graph load failed${where(failure)}: expected ${expected}, got ${describe(value)}. ${ROLLED_BACK}`,
    ),

  /** The database refused a row, a constraint or the commit. */
  refused: (failure: GraphLoadFailure, database: string, cause: unknown, retryable: boolean): HiLoGraphLoadError =>
    new HiLoGraphLoadError(
      failure,
      `Graph load failed${where(failure)}: ${database} said: ${serverWords(cause)} ${ROLLED_BACK}`,
      { cause, retryable },
    ),

  /** The input iterable threw. */
  inputFailed: (item: number, cause: unknown): HiLoGraphLoadError =>
    new HiLoGraphLoadError(
      { table: undefined, item, key: undefined, column: undefined },
      `Graph load failed: the input threw while reading item ${item}: ${serverWords(cause)} ${ROLLED_BACK}`,
      { cause },
    ),
};

/** The message of an error with its detail, as the server wrote them. */
function serverWords(error: unknown): string {
  if (!(error instanceof Error) && (typeof error !== 'object' || error === null)) return String(error);
  const { message, detail } = error as { message?: unknown; detail?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : describe(error);
  return typeof detail === 'string' && detail !== '' ? `${text} (${detail})` : `${text}.`.replace(/\.\.$/, '.');
}
