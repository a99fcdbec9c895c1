import type { SqlClient, SqlExecutor, SqlResult } from '../../sql/sql-client.js';
import { HiLoConfigurationError } from '../../errors.js';
import { sourceErrors } from '../../error-messages.js';

/** What a D1 statement resolves with (`D1Result`): its rows, and how many rows it changed. */
export interface D1ResultLike<Row = Record<string, unknown>> {
  /** The rows the statement returned (none for a write without `RETURNING`). */
  readonly results?: Row[];
  /** What D1 says about the run; hilo reads `changes`, the rows an INSERT, UPDATE or DELETE changed. */
  readonly meta?: { readonly changes?: number };
}

/** The part of a Cloudflare D1 `D1PreparedStatement` hilo uses. */
export interface D1PreparedStatementLike {
  /** Binds the statement's `?` parameters, in order. */
  bind(...values: unknown[]): D1PreparedStatementLike;
  /** Runs the statement and resolves with its rows and `meta`. */
  all<Row = Record<string, unknown>>(): Promise<D1ResultLike<Row>>;
}

/**
 * The part of a Cloudflare D1 binding (`env.DB`, a `D1Database`) hilo uses, declared here so that core never imports
 * Cloudflare's types: `prepare(sql)` and `batch(statements)`.
 */
export interface D1DatabaseLike {
  /** A statement of `sql` (D1 prepares it locally: nothing reaches the database before it runs). */
  prepare(sql: string): D1PreparedStatementLike;
  /** Runs the statements as one transaction: all of them or none. */
  batch(statements: D1PreparedStatementLike[]): Promise<D1ResultLike<unknown>[]>;
}

/**
 * Whether `value` is a Cloudflare D1 binding: `batch()` and `exec()` beside `prepare()`, whose statements bind their
 * parameters and answer asynchronously (`bind()`, `first()`). A SQLite driver's `Database` has no `batch()`, and its
 * statements run at once. Only a D1-looking object is asked to `prepare` (D1 prepares locally, without a query).
 */
export function isD1Binding(value: unknown): value is D1DatabaseLike {
  const db = value as Partial<Record<'prepare' | 'batch' | 'exec', unknown>> | null;
  if (typeof db !== 'object' || db === null) return false;
  if (typeof db.prepare !== 'function' || typeof db.batch !== 'function' || typeof db.exec !== 'function') return false;
  try {
    const statement = (db.prepare as (sql: string) => Partial<Record<'bind' | 'first', unknown>> | null)('select 1');
    return typeof statement?.bind === 'function' && typeof statement.first === 'function';
  } catch {
    return false;
  }
}

/** A D1 binding, or something that returns the current one. */
function bindingOf(given: unknown): () => D1DatabaseLike {
  const expected = 'a Cloudflare D1 binding (`env.DB`) or a function returning it (`() => env.DB`)';
  const check = (db: unknown): D1DatabaseLike => {
    const d = db as Partial<D1DatabaseLike> | null;
    if (typeof d !== 'object' || d === null || typeof d.prepare !== 'function' || typeof d.batch !== 'function') {
      throw HiLoConfigurationError.invalidOption('d1Client() binding', expected, db);
    }
    return d as D1DatabaseLike;
  };
  if (typeof given === 'function') return () => check((given as () => unknown)());
  const db = check(given);
  return () => db;
}

/**
 * D1 binds every JavaScript number as a REAL (a double) and refuses bigints, so a 64-bit key would lose its low digits,
 * and `next_value + 4.0` on a value above 2^53 rounds. A bigint therefore goes as its decimal text, and its
 * placeholder becomes `(? + 0)`, which SQLite reads as that exact INTEGER (an arithmetic result, without affinity, as
 * a bound integer is): what better-sqlite3 does with a bigint. `?NNN` placeholders keep their numbers; `?` inside
 * quotes or comments is left alone.
 */
function withIntegerPlaceholders(sql: string, params: readonly unknown[]): string {
  if (!params.some((p) => typeof p === 'bigint')) return sql;
  let out = '';
  let largest = 0;
  let at = 0;
  const skipTo = (end: number) => {
    out += sql.slice(at, end);
    at = end;
  };
  while (at < sql.length) {
    const c = sql[at]!;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let end = at + 1;
      for (;;) {
        const found = sql.indexOf(close, end);
        if (found < 0) {
          end = sql.length;
          break;
        }
        // a doubled quote is one quote inside the string
        if (close !== ']' && sql[found + 1] === close) {
          end = found + 2;
          continue;
        }
        end = found + 1;
        break;
      }
      skipTo(end);
    } else if (c === '-' && sql[at + 1] === '-') {
      const found = sql.indexOf('\n', at);
      skipTo(found < 0 ? sql.length : found);
    } else if (c === '/' && sql[at + 1] === '*') {
      const found = sql.indexOf('*/', at + 2);
      skipTo(found < 0 ? sql.length : found + 2);
    } else if (c === '?') {
      let end = at + 1;
      while (end < sql.length && sql[end]! >= '0' && sql[end]! <= '9') end++;
      const token = sql.slice(at, end);
      // SQLite: a bare `?` takes the number after the largest one assigned so far
      const n = end > at + 1 ? Number(token.slice(1)) : largest + 1;
      largest = Math.max(largest, n);
      out += typeof params[n - 1] === 'bigint' ? `(${token} + 0)` : token;
      at = end;
    } else {
      out += c;
      at++;
    }
  }
  return out;
}

/** D1's values for `params`: a boolean as 1 or 0 (as SQLite stores it), a bigint as its decimal text. */
function d1Params(params: readonly unknown[]): unknown[] {
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : typeof p === 'bigint' ? p.toString() : p));
}

function statementOf(db: D1DatabaseLike, sql: string, params: readonly unknown[] | undefined): D1PreparedStatementLike {
  const given = params ?? [];
  const prepared = db.prepare(withIntegerPlaceholders(sql, given));
  return given.length === 0 ? prepared : prepared.bind(...d1Params(given));
}

function resultOf<Row>(result: D1ResultLike<Row>): SqlResult<Row> {
  return { rows: result.results ?? [], affectedRows: Number(result.meta?.changes ?? 0) };
}

/**
 * Wraps a Cloudflare D1 binding as a {@link SqlClient} (dialect `sqlite`), for hilo in a Worker or anywhere a D1
 * binding is at hand (miniflare, `getPlatformProxy()`). Pass the binding (`env.DB`), or a function returning the
 * current one (`() => env.DB`), asked at each statement, for a generator kept across requests while the runtime
 * gives `env` to each. Give the binding itself, not a `withSession()` session: without sessions every query
 * reaches the primary database, and verified blocks must read the keys stored there.
 *
 * D1 has no interactive transactions (`BEGIN` is refused; each statement commits on its own), so:
 * - `query` and `atomic` run one statement, which D1 runs as its own transaction. hilo's SQLite table source (the
 *   default on SQLite) reserves with one `UPDATE … RETURNING` through `atomic`, so two processes (or Workers) on
 *   one database never get the same block.
 * - `batch` runs statements known up front as one transaction, all or none (D1's `batch()`); hilo installs its
 *   key guard with it.
 * - `transaction` runs its first statement as a transaction of its own, and refuses a second with
 *   `HiLoSourceError` before it runs; the first stays committed.
 * - `close()` closes nothing: the binding belongs to the Workers runtime.
 *
 * Parameters: a bigint binds as the exact 64-bit INTEGER (D1 binds numbers as REAL and refuses bigints: d1Client
 * sends its decimal text to a `(? + 0)` placeholder); a boolean as 1 or 0; a number as D1 binds it, a REAL. D1
 * returns integers as JavaScript numbers, so read keys beyond `Number.MAX_SAFE_INTEGER` as text (`cast(id as text)`).
 *
 * @throws HiLoConfigurationError when `binding` is neither a D1 binding nor a function (checked again at each
 *   statement for what the function returns)
 * @example
 * ```ts
 * const client = d1Client(env.DB);
 * const hilo = createHiLo({ client, blockSize: 100 });
 * const id = await hilo.next('orders');
 * ```
 */
export function d1Client(binding: D1DatabaseLike | (() => D1DatabaseLike)): SqlClient {
  const current = bindingOf(binding);
  const run = async <Row>(sql: string, params?: readonly unknown[]): Promise<SqlResult<Row>> =>
    resultOf(await statementOf(current(), sql, params).all<Row>());
  return {
    dialect: 'sqlite',
    query: run,
    // D1 runs each statement as a transaction of its own
    atomic: run,
    async batch(statements) {
      const db = current();
      const results = await db.batch(statements.map(({ sql, params }) => statementOf(db, sql, params)));
      return results.map((result) => resultOf(result as D1ResultLike<Record<string, unknown>>));
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      let statements = 0;
      return work({
        query: async <Row>(sql: string, params?: readonly unknown[]) => {
          statements += 1;
          if (statements > 1) throw sourceErrors.d1OneStatementOnly();
          return run<Row>(sql, params);
        },
      });
    },
    close: () => Promise.resolve(),
  };
}
