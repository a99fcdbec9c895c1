import { checkInteger, keyToField, type KeyFieldLimits } from 'hilo-core/adapter-kit';
import { Prisma } from '@prisma/client/extension';
import { HiLoConfigurationError, type HiLoGenerator } from 'hilo-core';
import {
  resolveMetadata,
  type HiLoKeyOf,
  type HiLoModelKey,
  type HiLoPrismaMetadata,
  type PrismaModelName,
  type ResolvedModel,
  type RuntimeDataModelLike,
} from './metadata.js';
import { collectKeySlots, type KeySlot } from './walk-args.js';
import { createKeyTaker, fieldMaxKey, type HiLoPrismaConnectionOptions, type KeyTaker } from './key-supply.js';
import { inInputOrder, insertThenSelect, type CreateManyAndReturnArgs, type Projection } from './many-and-return.js';
import { configurationErrors } from './error-messages.js';
import {
  createGraph,
  type HiLoPrismaGraphArgs,
  type HiLoPrismaGraphOptions,
  type HiLoPrismaGraphResult,
} from './graph.js';

/** Options of {@link hilo}. */
export type HiLoPrismaOptions<M extends HiLoPrismaMetadata> = HiLoPrismaConnectionOptions & {
  /**
   * Which field is each model's key: import `hiloMetadata` from the `hilo.ts` the generator writes, or
   * write it by hand (relations are then read from the client).
   * @example
   * ```ts
   * import { hiloMetadata } from './generated/prisma/hilo.js';
   * prisma.$extends(hilo({ metadata: hiloMetadata, url: process.env.DATABASE_URL }));
   * ```
   */
  metadata: M;
  /**
   * Where each model's `createGraph()` writes: the driver pool the app gave Prisma's adapter (see "Graph loads").
   * @example
   * ```ts
   * const pool = new pg.Pool({ connectionString: url });
   * new PrismaClient({ adapter: new PrismaPg(pool) }).$extends(hilo({ metadata, url, graph: { pool } }));
   * ```
   */
  graph?: HiLoPrismaGraphOptions;
};

type Plain = Record<string | symbol, unknown>;
/** The property Prisma 7 gives an interactive transaction's client (`$transaction`'s callback argument). */
const TRANSACTION_SCOPE = Symbol.for('prisma.client.transaction.scope_context');

const FILLED = new Set(['create', 'createMany', 'createManyAndReturn', 'upsert', 'update']);
/** Turns a generator key into the field's JavaScript type, refusing Int overflow instead of wrapping. */
function toFieldKey(model: string, key: HiLoModelKey, value: number | bigint): number | bigint {
  let field = fields.get(key);
  if (field === undefined) {
    const limits = { maxKey: fieldMaxKey(key), column: `an ${key.type}`, widen: 'make the field BigInt' };
    fields.set(
      key,
      (field = { as: key.type === 'BigInt' ? 'bigint' : 'number', where: `${model}.${key.field}`, limits }),
    );
  }
  return keyToField(value, field.as, field.where, field.limits) as number | bigint;
}

/** Per model key, what {@link keyToField} needs, built on first use instead of per key. */
const fields = new WeakMap<HiLoModelKey, { as: 'bigint' | 'number'; where: string; limits: KeyFieldLimits }>();

function keyedModel(
  models: ReadonlyMap<string, ResolvedModel>,
  name: string | undefined,
  why = '',
): ResolvedModel & { key: HiLoModelKey } {
  const model = name === undefined ? undefined : models.get(name);
  if (model?.key === undefined) {
    throw configurationErrors.modelWithoutKey(name, why);
  }
  return model as ResolvedModel & { key: HiLoModelKey };
}

async function fillSlots(supply: KeyTaker, slots: readonly KeySlot[]): Promise<void> {
  const bySegment = new Map<string, KeySlot[]>();
  for (const slot of slots) {
    const segment = slot.model.key!.segment;
    const list = bySegment.get(segment);
    if (list) list.push(slot);
    else bySegment.set(segment, [slot]);
  }
  await Promise.all(
    [...bySegment].map(async ([segment, list]) => {
      const keys = await supply.take(segment, list.length);
      list.forEach((slot, i) => {
        const key = slot.model.key!;
        slot.target[key.field] = toFieldKey(slot.model.name, key, keys[i]!);
      });
    }),
  );
}

/**
 * The schema the client's driver adapter qualifies tables with (`new PrismaPg(pool, { schema: 'shop' })`), read
 * from the adapter factory the client holds; `undefined` when there is none or it is shaped otherwise. A SQLite
 * adapter (`@prisma/adapter-better-sqlite3`, `-libsql`) is refused: metadata written by hand may not say its provider.
 */
function adapterSchemaOf(client: unknown): string | undefined {
  const engine = (client as { _engineConfig?: { adapter?: { provider?: unknown; options?: { schema?: unknown } } } })
    ._engineConfig;
  if (engine?.adapter?.provider === 'sqlite') throw configurationErrors.sqliteUnsupported('adapter');
  const schema = engine?.adapter?.options?.schema;
  return typeof schema === 'string' && schema !== '' ? schema : undefined;
}

/**
 * A Prisma client extension that fills missing hi/lo keys before a query leaves the process — in
 * `create`, `createMany`, `createManyAndReturn`, `upsert` and every nested create at any depth — and adds
 * `nextId()` and `reserveIds(n)` to each model. Reservations run on a connection of their own, never on
 * the caller's transaction.
 * @example
 * ```ts
 * const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) })
 *   .$extends(hilo({ metadata: hiloMetadata, url }));
 * const id = await prisma.order.nextId(); // bigint for a BigInt key
 * await prisma.$hilo.close();
 * ```
 */
export function hilo<const M extends HiLoPrismaMetadata>(options: HiLoPrismaOptions<M>) {
  if (typeof options !== 'object' || options === null) {
    throw HiLoConfigurationError.invalidOption(
      'options',
      'an object with `metadata` and `url`, `client` or `generator`',
      options,
    );
  }
  const metadata = options.metadata;
  // fail on a bad option at start-up rather than at the first insert
  resolveMetadata(metadata, undefined);
  if (metadata.provider === 'sqlite') throw configurationErrors.sqliteUnsupported('provider');
  const supply = createKeyTaker(options, metadata);
  const graphPool = options.graph?.pool;

  return Prisma.defineExtension((client) => {
    const adapterSchema = adapterSchemaOf(client);
    supply.useAdapterSchema(adapterSchema);
    let models: ReadonlyMap<string, ResolvedModel> | undefined;
    const getModels = (): ReadonlyMap<string, ResolvedModel> =>
      (models ??= resolveMetadata(
        metadata,
        (client as { _runtimeDataModel?: RuntimeDataModelLike })._runtimeDataModel,
      ));

    /** Fills the missing keys of a top-level operation's arguments, in a copy. */
    const fill = async (model: string, operation: string, args: unknown): Promise<Record<string, unknown>> => {
      const prepared = collectKeySlots(getModels(), model, operation, args);
      if (prepared.slots.length > 0) await fillSlots(supply, prepared.slots);
      return prepared.args as Record<string, unknown>;
    };

    const manyAndReturn = {
      /**
       * hilo's `createManyAndReturn` for MySQL and MariaDB, where Prisma has none: the keys are filled before the
       * insert, so one `createMany` and one `findMany` by those keys (in one transaction) return the rows, in the
       * order of `data`. `select`, `include` and `omit` are `findMany`'s; `skipDuplicates` is refused. Only for
       * models with a hi/lo key.
       * @example
       * ```ts
       * const orders = await prisma.order.createManyAndReturn({ data: [{ number: 'A-1', customerId }] });
       * ```
       */
      async createManyAndReturn<T, A>(
        this: T,
        args: [HiLoKeyOf<M, PrismaModelName<T>>] extends [never] ? never : Prisma.Exact<A, CreateManyAndReturnArgs<T>>,
      ): Promise<Prisma.Result<T, A, 'findMany'>> {
        const delegate = Prisma.getExtensionContext(this) as unknown as Parameters<typeof insertThenSelect>[0];
        const model = keyedModel(getModels(), delegate.$name, ' (Prisma has no createManyAndReturn on MySQL)');
        const { select, include, omit, ...insert } = args as Projection & { skipDuplicates?: boolean };
        if (insert.skipDuplicates === true) {
          throw configurationErrors.skipDuplicatesOnMysql();
        }
        const filled = await fill(model.name, 'createMany', insert);
        const rows = await insertThenSelect(delegate, filled, model.key.field, { select, include, omit });
        return rows as Prisma.Result<T, A, 'findMany'>;
      },
    };

    return client.$extends({
      name: 'hilo',
      model: {
        $allModels: {
          /**
           * The next hi/lo key of this model, from memory when a block is in hand.
           * @example
           * ```ts
           * const id = await prisma.order.nextId();
           * ```
           */
          async nextId<T>(this: T): Promise<HiLoKeyOf<M, PrismaModelName<T>>> {
            const model = keyedModel(getModels(), Prisma.getExtensionContext(this).$name);
            const [key] = await supply.take(model.key.segment, 1);
            return toFieldKey(model.name, model.key, key!) as HiLoKeyOf<M, PrismaModelName<T>>;
          },
          /**
           * `count` hi/lo keys of this model at once, in increasing order, for batches.
           * @example
           * ```ts
           * const ids = await prisma.orderItem.reserveIds(1000);
           * ```
           */
          async reserveIds<T>(this: T, count: number): Promise<HiLoKeyOf<M, PrismaModelName<T>>[]> {
            checkInteger('count', count, { min: 0 });
            const model = keyedModel(getModels(), Prisma.getExtensionContext(this).$name);
            if (count === 0) return [];
            const keys = await supply.take(model.key.segment, count);
            return keys.map((k) => toFieldKey(model.name, model.key, k)) as HiLoKeyOf<M, PrismaModelName<T>>[];
          },
          /**
           * Writes a graph — roots of this model with their children nested as `create`/`createMany`, as you write
           * them for `create()` — in the database's bulk path (PostgreSQL binary COPY, MariaDB/MySQL multi-row
           * INSERTs), with hilo's keys assigned first, parents before children, in one transaction on a connection of
           * `graph.pool`. Each key, and each child's foreign key, is written back into its input object. A failure
           * rolls it all back with `HiLoGraphLoadError`; what it cannot translate (`connect`, a relation on the
           * foreign-key side, an unknown field) is refused before anything is written. Not inside `$transaction`.
           * @example
           * ```ts
           * const data = { reference: 'A-1', customerId, items: { create: [{ sku: 'x', quantity: 2 }] } };
           * await prisma.order.createGraph({ data: [data] });
           * data.id; // its key
           * ```
           */
          async createGraph<T>(
            this: T,
            args: [HiLoKeyOf<M, PrismaModelName<T>>] extends [never]
              ? never
              : HiLoPrismaGraphArgs<Prisma.Args<T, 'create'>['data']>,
          ): Promise<HiLoPrismaGraphResult> {
            const context = Prisma.getExtensionContext(this) as unknown as { $name: string; $parent?: Plain };
            // an interactive transaction's client: Prisma 6 takes `$transaction` away, Prisma 7 marks its scope
            const parent = context.$parent ?? {};
            if (typeof parent.$transaction !== 'function' || parent[TRANSACTION_SCOPE] !== undefined)
              throw configurationErrors.graphInTransaction(context.$name);
            const graphContext = {
              metadata,
              models: getModels(),
              schema: adapterSchema,
              pool: graphPool,
              generator: supply.handle.generator as () => Promise<HiLoGenerator<number | bigint>>,
              toField: toFieldKey,
              keyed: (name: string) => keyedModel(getModels(), name, ' (createGraph() gives every row a hi/lo key)'),
            };
            return createGraph(graphContext, context.$name, args);
          },
          ...((metadata.provider === 'mysql' ? manyAndReturn : {}) as M extends { readonly provider: 'mysql' }
            ? typeof manyAndReturn
            : Record<never, never>),
        },
      },
      query: {
        $allModels: {
          async $allOperations({ model, operation, args, query }) {
            if (!FILLED.has(operation)) return query(args);
            const filled = await fill(model, operation, args);
            const key = getModels().get(model)?.key;
            if (operation !== 'createManyAndReturn' || key === undefined) return query(filled as typeof args);
            // PostgreSQL's INSERT … RETURNING: the rows in the order of `data`, which Prisma does not promise
            return inInputOrder(filled.data, filled, key.field, (shape) => query(shape as typeof args));
          },
        },
      },
      client: {
        /** hilo's key supply: `close()` it at shutdown, `warm()` it at start-up, `generator()` for stats. */
        $hilo: supply.handle,
        /**
         * Prisma's `$connect()`, then hilo's start check (`$hilo.warm()`): the first block of every hi/lo segment is
         * reserved and checked against the keys stored in the models' tables, so a hi store set back (a restore, a
         * reset) rejects here with `HiLoStoreBehindError`, at start-up, before the first request — as TypeORM does
         * at `initialize()`. Prisma's automatic connect on the first query does not call it: await it at start.
         * @example
         * ```ts
         * await prisma.$connect(); // rejects with HiLoStoreBehindError when the store fell behind the rows
         * ```
         */
        async $connect(): Promise<void> {
          // the client this extension extends: its own connect (and any earlier extension's), typed without it here
          await (client as unknown as { $connect(): Promise<void> }).$connect();
          await supply.handle.warm();
        },
      },
    });
  });
}
