import type { Prisma } from '@prisma/client/extension';

type Row = Record<string, unknown>;

/** The part of `createManyAndReturn`'s arguments that shapes the rows it returns. */
export interface Projection {
  readonly select?: Row | null;
  readonly include?: Row | null;
  readonly omit?: Row | null;
}

/**
 * What `createManyAndReturn` takes on MySQL and MariaDB with hilo: `createMany`'s `data`, and the `select`,
 * `include` and `omit` of `findMany` (so to-many relations too). `skipDuplicates` is refused: MySQL's
 * `INSERT IGNORE` does not say which rows it skipped, and a row already stored under a key you set would come back
 * as if you had inserted it.
 */
export type CreateManyAndReturnArgs<T> = Omit<Prisma.Args<T, 'createMany'>, 'skipDuplicates'> & {
  [K in Extract<keyof Prisma.Args<T, 'findMany'>, keyof Projection>]?: Prisma.Args<T, 'findMany'>[K];
} & {
  /** Not on MySQL/MariaDB: use `createMany({ skipDuplicates: true })` and read the rows back yourself. */
  skipDuplicates?: false;
};

/** The model delegate a model method is called on (`prisma.order`, or `tx.order` in a transaction). */
interface Delegate {
  readonly $name: string;
  readonly $parent: { $connect?: unknown; $transaction(queries: unknown[]): Promise<unknown[]> };
  createMany(args: unknown): PromiseLike<unknown>;
  findMany(args: unknown): PromiseLike<unknown>;
}

/**
 * Runs a query that returns the rows of `data` (each with its key in `field`) and gives them back in the order of
 * `data`, as `projection` asks for them: the key is selected for the sorting and taken out again when the caller's
 * `select` or `omit` left it out. Rows the database did not insert (`skipDuplicates`) are left out.
 */
export async function inInputOrder(
  data: unknown,
  projection: Projection,
  field: string,
  run: (projection: Projection) => PromiseLike<unknown>,
): Promise<Row[]> {
  const keys = (Array.isArray(data) ? data : [data]).map((row) => String((row as Row | undefined)?.[field]));
  const { select, omit } = projection;
  const rows = (await run(
    select
      ? { ...projection, select: { ...select, [field]: true } }
      : { ...projection, omit: { ...omit, [field]: false } },
  )) as Row[];
  const byKey = new Map(rows.map((row) => [String(row[field]), row]));
  const strip = select ? !select[field] : omit?.[field] === true;
  return keys.flatMap((key) => {
    const row = byKey.get(key);
    if (row === undefined) return [];
    if (!strip) return [row];
    const { [field]: _key, ...rest } = row;
    return [rest];
  });
}

/**
 * `createManyAndReturn` where Prisma has none (MySQL, MariaDB): the keys are in `insert.data` already, so one
 * `createMany` and one `findMany` by those keys return the rows. On the client the two run in one batch
 * transaction; on a transaction client, in that transaction.
 */
export async function insertThenSelect(
  delegate: Delegate,
  insert: { data?: unknown },
  field: string,
  projection: Projection,
): Promise<Row[]> {
  const data = (Array.isArray(insert.data) ? insert.data : [insert.data]) as (Row | undefined)[];
  if (data.length === 0) return [];
  return inInputOrder(data, projection, field, async (shape) => {
    const created = delegate.createMany(insert);
    const found = delegate.findMany({ ...shape, where: { [field]: { in: data.map((row) => row?.[field]) } } });
    // a transaction client lacks `$connect` (Prisma's ITXClientDenyList): there both run in the caller's transaction
    const parent = delegate.$parent;
    if (typeof parent.$connect === 'function') return (await parent.$transaction([created, found]))[1];
    await created;
    return found;
  });
}
