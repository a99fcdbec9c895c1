import { InvalidArgumentError } from 'commander';
import { columnTypeMaxKey, MAX_BLOCK_SIZE } from 'hilo-core/adapter-kit';

/** Where hi blocks come from: a database sequence per segment, or one row per segment in a hi table. */
export type SourceKind = 'sequence' | 'table';

/** `--source`: `sequence` or `table`. */
export function parseSource(value: string): SourceKind {
  if (value === 'sequence' || value === 'table') return value;
  throw new InvalidArgumentError(`Expected "sequence" or "table", got ${JSON.stringify(value)}.`);
}

/** A decimal integer from `min` to `max`, written without sign, spaces, exponent or fraction. */
function integer(value: string, min: number, max: number, example: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new InvalidArgumentError(
      `Expected an integer from ${min} to ${max} (e.g. ${example}), got ${JSON.stringify(value)}.`,
    );
  }
  return n;
}

/** `--block-size`: keys reserved per round trip, 1 … 2³¹−1. */
export function parseBlockSize(value: string): number {
  return integer(value, 1, MAX_BLOCK_SIZE, '100');
}

/** `--count`: how many keys `next` prints, 1 … 2⁵³−1. */
export function parseCount(value: string): number {
  return integer(value, 1, Number.MAX_SAFE_INTEGER, '1000');
}

/** `--max-key`: the largest key the key column holds, as a number or a column type (`int`, `bigint`). */
export function parseMaxKey(value: string): bigint {
  const named = columnTypeMaxKey(value);
  if (named !== undefined) return named;
  if (/^[1-9][0-9]{0,18}$/.test(value)) return BigInt(value);
  throw new InvalidArgumentError(
    `Expected a column type (smallint, int, bigint) or a positive integer (e.g. 2147483647), got ${JSON.stringify(value)}.`,
  );
}

const SCHEMES = /^(postgres|postgresql|mysql|mariadb):\/\/|^sqlite:/i;

/** `--url`: checked for a scheme hilo speaks before anything connects. */
export function parseUrl(value: string): string {
  if (!SCHEMES.test(value)) {
    const shown = value.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
    throw new InvalidArgumentError(
      `Expected a URL starting with postgres://, postgresql://, mysql://, mariadb:// or sqlite: (e.g. ` +
        `postgres://app@localhost:5432/shop), got ${JSON.stringify(shown)}.`,
    );
  }
  if (/^sqlite:(\/\/)?$/i.test(value)) {
    throw new InvalidArgumentError(
      `Expected a file after "sqlite:" (e.g. sqlite:app.db), got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** What `floor --from` names: a table, optionally schema-qualified, and a column. */
export interface ColumnRef {
  readonly schema?: string;
  readonly table: string;
  readonly column: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** `--from TABLE[.COLUMN]` or `--from SCHEMA.TABLE.COLUMN`; the column defaults to `id`. */
export function parseColumnRef(value: string): ColumnRef {
  const parts = value.split('.');
  if (parts.length > 3 || !parts.every((part) => NAME.test(part))) {
    throw new InvalidArgumentError(
      `Expected TABLE, TABLE.COLUMN or SCHEMA.TABLE.COLUMN made of letters, digits and "_" (e.g. orders.id), got ${JSON.stringify(value)}.`,
    );
  }
  if (parts.length === 3) return { schema: parts[0]!, table: parts[1]!, column: parts[2]! };
  return { table: parts[0]!, column: parts[1] ?? 'id' };
}

/** What `floor --from` names: a column, in one schema or in every tenant's (`*.TABLE.COLUMN`). */
export interface FloorRef extends ColumnRef {
  /** `'*'`: every schema (database) holding the table, for a store shared by tenants. */
  readonly tenants?: '*';
}

/** `--from TABLE[.COLUMN]`, `SCHEMA.TABLE.COLUMN`, or `*.TABLE.COLUMN` for every tenant's copy of the table. */
export function parseFloorRef(value: string): FloorRef {
  if (!value.startsWith('*.')) return parseColumnRef(value);
  const { table, column, schema } = parseColumnRef(value.slice(2));
  if (schema !== undefined) {
    throw new InvalidArgumentError(`Expected *.TABLE.COLUMN (e.g. *.orders.id), got ${JSON.stringify(value)}.`);
  }
  return { tenants: '*', table, column };
}

/** `--table NAME`: the hi table, a plain SQL identifier. */
export function parseTableName(value: string): string {
  if (!NAME.test(value)) {
    throw new InvalidArgumentError(
      `Expected a table name of letters, digits and "_" starting with a letter or "_" (e.g. hilo_segments), got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}

/** What `init --guard` names: a key column, and the segment its keys come from when given. */
export interface GuardRef extends ColumnRef {
  /** `SEGMENT=` before the column; otherwise chosen by `init` from its segments. */
  readonly segment?: string;
}

/**
 * `--guard [SEGMENT=]TABLE[.COLUMN]` or `[SEGMENT=]SCHEMA.TABLE.COLUMN`; the column defaults to `id`.
 * The segment is checked by `init` against the segments it creates.
 */
export function parseGuardRef(value: string): GuardRef {
  const at = value.indexOf('=');
  const segment = at < 0 ? undefined : value.slice(0, at);
  const column = at < 0 ? value : value.slice(at + 1);
  const parts = column.split('.');
  if ((segment !== undefined && segment === '') || parts.length > 3 || !parts.every((part) => NAME.test(part))) {
    throw new InvalidArgumentError(
      `Expected TABLE, TABLE.COLUMN or SCHEMA.TABLE.COLUMN of letters, digits and "_", optionally ` +
        `after SEGMENT= (e.g. orders.id or items=order_items.id), got ${JSON.stringify(value)}.`,
    );
  }
  const ref = parseColumnRef(column);
  return segment === undefined ? ref : { ...ref, segment };
}
