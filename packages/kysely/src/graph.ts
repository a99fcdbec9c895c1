// hilo-core's graph load for Kysely: the tables by their registered names, described from the catalog through Kysely,
// written on the connection hilo-core's target for the database needs (see loadKyselyGraph).
import { CompiledQuery, SelectQueryNode, TableNode, sql, type Insertable, type Kysely } from 'kysely';
import {
  HiLoConfigurationError,
  loadGraph,
  mysqlGraphTarget,
  pgGraphTarget,
  sqliteGraphTarget,
  type GraphLoadResult,
  type GraphNode,
  type GraphReference,
  type GraphTarget,
  type HiLoGenerator,
  type PgGraphPoolLike,
  type SqlDialect,
  type SqlExecutor,
  type SqliteDatabaseLike,
} from 'hilo-core';
import { checkedGraphInput, describeGraphTables } from 'hilo-core/adapter-kit';
import { configurationErrors } from './error-messages.js';
import { pgClientOfBackend } from './pg-pool-clients.js';

/**
 * A row of a table with row type `R` (your `DB` interface's) in a graph load: its insertable columns, each optional.
 * Leave the key and the child's reference to its parent out: hilo writes the key into the row object, and the
 * parent's key into the child's reference.
 */
export type HiLoKyselyGraphRow<R> = { -readonly [C in keyof Insertable<R>]?: Insertable<R>[C] | null };

/**
 * One object of a graph load's input, typed by your `DB` interface: a row of `table`, with the rows nested under it
 * (each gets this row's key in its reference to `table`; `via` names the reference when there are several).
 */
export type HiLoKyselyGraphNode<DB> = {
  [T in keyof DB & string]: {
    /** A table registered with hiloKysely(), by its registered name. */
    readonly table: T;
    /** The row's column values; the key column stays unset (the load sets it). */
    readonly row: HiLoKyselyGraphRow<DB[T]>;
    /** Rows that reference this one, written after it. */
    readonly children?: Iterable<HiLoKyselyGraphNode<DB>>;
    /** The child's reference column that takes the parent's key, when it has several to the parent's table. */
    readonly via?: keyof DB[T] & string;
  };
}[keyof DB & string];

/** What a graph load writes of one table, beyond what the catalog says. */
export interface HiLoKyselyGraphTable<R = unknown> {
  /**
   * The columns written (the key and the references are added).
   * @default every column of the table without a default (or generation expression) in the database
   */
  readonly columns?: readonly (keyof R & string)[];
  /**
   * The table's references to tables of the load, by their names in `tables`.
   * @default its one-column foreign keys to them, read from the catalog
   */
  readonly references?: readonly GraphReference[];
}

/** Options of {@link HiLoKysely.loadGraph}. */
export interface HiLoKyselyGraphOptions<DB> {
  /**
   * The tables the input writes, by the names they are registered with in hiloKysely() (their key column and
   * segment come from there): a list, or per table what to write beyond the catalog's description.
   * @example
   * ```ts
   * tables: ['orders', 'order_items']
   * ```
   */
  readonly tables:
    readonly (keyof DB & string)[] | { readonly [T in keyof DB & string]?: true | HiLoKyselyGraphTable<DB[T]> };
  /** The root objects (each with its children), read as they are needed: the graph is never all in memory. */
  readonly input: AsyncIterable<HiLoKyselyGraphNode<DB>> | Iterable<HiLoKyselyGraphNode<DB>>;
  /**
   * How many rows (all tables together) are read, keyed and written at a time.
   * @default 5000
   */
  readonly batchRows?: number;
  /**
   * PostgreSQL: the `pg` `Pool` you gave `PostgresDialect` (binary COPY needs pg's connection, which Kysely does not
   * expose). Outside a transaction the load takes a connection of its own from it; inside one it runs on the
   * transaction's connection, found in this pool.
   */
  readonly pool?: PgGraphPoolLike;
  /** SQLite: the `better-sqlite3` `Database` (or `node:sqlite` `DatabaseSync`) you gave `SqliteDialect`. */
  readonly database?: SqliteDatabaseLike;
}

/** Any database's tables, for the statements the load builds from names it was given. */
type AnyDB = Record<string, Record<string, unknown>>;

/** The registration a table node (its name, and the schema `withSchema()` gave it) resolves to, or a typed refusal. */
export type GraphTableResolver = (node: TableNode) => { readonly column: string; readonly segment: string };

const OPTION_NAMES: ReadonlySet<string> = new Set(['tables', 'input', 'batchRows', 'pool', 'database']);

/** The database a Kysely instance compiles for, by how it quotes a name and writes a parameter. */
function dialectOf(db: Kysely<AnyDB>): SqlDialect {
  const text = sql`${sql.ref('a')} ${1}`.compile(db).sql;
  const found = ({ '"a" $1': 'postgres', '`a` ?': 'mysql', '"a" ?': 'sqlite' } as const)[text];
  if (found === undefined) throw configurationErrors.graphDialect(text);
  return found;
}

/** Statements run through Kysely (its transaction's connection, when `db` is one). */
function executorOf(db: Kysely<AnyDB>): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []) {
      const result = await db.executeQuery<Row>(CompiledQuery.raw(text, [...params]));
      return { rows: [...result.rows], affectedRows: Number(result.numAffectedRows ?? 0) };
    },
  };
}

/** Whether two connections answered the same rows to an identity query: they reach the same database. */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Runs hilo-core's `loadGraph` for a Kysely app: the tables by their registered names (key column and segment from
 * the registration, columns and foreign keys from the catalog), written through hilo-core's target for the database
 * — on PostgreSQL binary COPY on a connection of `pool`, on MariaDB/MySQL multi-row INSERTs on a connection Kysely
 * holds for the load, on SQLite on `database` while Kysely holds its one connection. When `db` is a transaction, the
 * load runs in a savepoint on the transaction's connection.
 */
export async function loadKyselyGraph<DB>(
  db: { readonly isTransaction: boolean },
  options: HiLoKyselyGraphOptions<DB>,
  resolve: GraphTableResolver,
  generator: HiLoGenerator<number | bigint>,
): Promise<GraphLoadResult> {
  if (typeof options !== 'object' || options === null)
    throw HiLoConfigurationError.invalidOption('hilo.loadGraph() options', 'an object with tables and input', options);
  HiLoConfigurationError.checkOptionNames(options, OPTION_NAMES, 'hilo.loadGraph()');
  const kysely = db as unknown as Kysely<AnyDB>;
  const dialect = dialectOf(kysely);
  const given = options.tables as readonly string[] | Readonly<Record<string, true | HiLoKyselyGraphTable>>;
  const entries: (readonly [string, true | HiLoKyselyGraphTable])[] = Array.isArray(given)
    ? (given as readonly string[]).map((name) => [name, true] as const)
    : Object.entries(given);
  const nodes = entries.map(([name]) => {
    const node = (kysely.selectFrom(name).selectAll().compile().query as SelectQueryNode).from!.froms[0] as TableNode;
    if (node.table.schema !== undefined && dialect === 'sqlite') throw configurationErrors.graphSchemaOnSqlite(name);
    return node;
  });
  // the names the input (and `references`) use, registered names, to the tables' own
  const names = new Map(entries.map(([name], i) => [name, nodes[i]!.table.identifier.name]));
  const requests = entries.map(([, setting], i) => {
    const { column, segment } = resolve(nodes[i]!);
    const { identifier, schema } = nodes[i]!.table;
    const references = setting === true ? undefined : setting.references;
    return {
      table: identifier.name,
      ...(schema === undefined ? {} : { schema: schema.name }),
      key: column,
      segment,
      ...(setting === true || setting.columns === undefined ? {} : { columns: setting.columns }),
      ...(references === undefined
        ? {}
        : { references: references.map((ref) => ({ ...ref, table: names.get(ref.table) ?? ref.table })) }),
    };
  });
  const executor = executorOf(kysely);
  const specs = await describeGraphTables(executor, dialect, requests);
  const run = (target: GraphTarget) =>
    loadGraph({
      target,
      generator,
      tables: specs,
      input: checkedGraphInput(options.input as AsyncIterable<GraphNode> | Iterable<GraphNode>, specs, names),
      ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
    });
  if (dialect === 'mysql') {
    const onKysely = (conn: Kysely<AnyDB>) =>
      run(
        mysqlGraphTarget({
          connection: { query: async (text, values) => [(await executorOf(conn).query(text, values)).rows, undefined] },
          inTransaction: conn.isTransaction,
        }),
      );
    return kysely.isTransaction ? onKysely(kysely) : kysely.connection().execute(onKysely);
  }
  if (dialect === 'sqlite') {
    const { database } = options;
    if (typeof database?.prepare !== 'function') throw configurationErrors.graphNeedsDatabase(database);
    // while Kysely holds its one connection: `database` is in a transaction exactly when `db` is one
    const onKysely = async (conn: Kysely<AnyDB>) => {
      const file = "select file from pragma_database_list where name = 'main'";
      const inTransaction = database.inTransaction === true || database.isTransaction === true;
      const found = (await executorOf(conn).query(file)).rows;
      if (!same(found, database.prepare(file).all()) || inTransaction !== conn.isTransaction)
        throw configurationErrors.graphOtherDatabase('database', 'SqliteDialect');
      return run(sqliteGraphTarget({ database }));
    };
    return kysely.isTransaction ? onKysely(kysely) : kysely.connection().execute(onKysely);
  }
  const { pool } = options;
  if (typeof pool?.connect !== 'function') throw configurationErrors.graphNeedsPool(pool);
  if (kysely.isTransaction) {
    const { rows } = await executor.query<{ pid: unknown }>('select pg_backend_pid() as pid');
    return run(pgGraphTarget({ connection: pgClientOfBackend(pool, Number(rows[0]!.pid)), inTransaction: true }));
  }
  const identity = 'select current_database() as d, inet_server_port() as p, pg_postmaster_start_time()::text as t';
  const expected = (await executor.query(identity)).rows;
  return run(
    pgGraphTarget({
      pool: {
        async connect() {
          const connection = await pool.connect();
          if (same((await connection.query(identity)).rows, expected)) return connection;
          connection.release();
          throw configurationErrors.graphOtherDatabase('pool', 'PostgresDialect');
        },
      },
    }),
  );
}
