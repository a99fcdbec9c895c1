import type { HiLoGenerator, SqlClient } from 'hilo-core';
import {
  columnTypeMaxKey,
  KEY_SUPPLY_OPTION_NAMES,
  openKeySupply,
  type HiSourceLayout,
  type PassedGeneratorOptions,
} from 'hilo-core/adapter-kit';
import type { HiLoModelKey, HiLoPrismaMetadata } from './metadata.js';
import { SQLITE_WHY } from './error-messages.js';

/** The largest key a Prisma key field holds: an Int's 2^31 − 1, a BigInt's 2^63 − 1. */
export function fieldMaxKey(key: HiLoModelKey): bigint {
  return columnTypeMaxKey(key.type === 'Int' ? 'int' : 'bigint')!;
}

/**
 * Where the extension's keys come from — exactly one of `url`, `client` or `generator` — and, when hilo
 * builds the generator, how.
 */
export interface HiLoPrismaConnectionOptions extends Omit<PassedGeneratorOptions, 'segments'>, HiSourceLayout {
  /**
   * Database URL for hilo's own connection pool (`postgres://…`, `mysql://…`, `mariadb://…`), usually the
   * one the driver adapter uses. Reservations run there and commit at once, never in your transaction.
   * @example
   * ```ts
   * hilo({ metadata: hiloMetadata, url: process.env.DATABASE_URL })
   * ```
   */
  url?: string;
  /**
   * A `SqlClient` you own (`pgClient(pool)`, `mysqlClient(pool)`, `connect(url)`), used instead of `url`;
   * hilo leaves it open at `close()`.
   */
  client?: SqlClient;
  /**
   * A generator you created and own (`createHiLoGenerator(...)`); hilo neither warms nor closes it.
   * @example
   * ```ts
   * hilo({ metadata, generator: createHiLoGenerator({ source: memorySource(), keyType: 'bigint' }) })
   * ```
   */
  generator?: HiLoGenerator<number> | HiLoGenerator<bigint>;
}

/** What `prisma.$hilo` offers. */
export interface HiLoPrismaHandle {
  /** The generator behind the extension; resolves once hilo has connected (on first use). */
  generator(): Promise<HiLoGenerator<number> | HiLoGenerator<bigint>>;
  /** Reserves a block for each hi/lo model now, so the first inserts do not wait; fails fast when the database is unreachable. */
  warm(): Promise<void>;
  /** Closes what hilo created (generator and connection pool); a generator or client you passed in stays open. */
  close(): Promise<void>;
}

/**
 * Hands out keys by segment, several at a time, and owns the generator's life cycle (through hilo-core's
 * `KeySupply`, which it wraps; named apart from it because it is a different thing).
 */
export interface KeyTaker {
  take(segment: string, count: number): Promise<readonly (number | bigint)[]>;
  /**
   * The schema the Prisma client's driver adapter qualifies tables with (`new PrismaPg(pool, { schema })`), for
   * the tables of models without `@@schema`; told once the extension sees its client.
   */
  useAdapterSchema(schema: string | undefined): void;
  readonly handle: HiLoPrismaHandle;
}

/**
 * The option names of `hilo()`: the key supply's, with `metadata` and without `segments` (the metadata has them)
 * and `keyGuard` (SQLite only; hilo-prisma runs on PostgreSQL and MariaDB/MySQL, where `safetyNetSql` guards).
 */
const PRISMA_OPTION_NAMES: ReadonlySet<string> = new Set([
  ...[...KEY_SUPPLY_OPTION_NAMES].filter((name) => name !== 'segments' && name !== 'keyGuard'),
  'metadata',
  'graph',
]);

/** Validates the connection options and builds the key taker; nothing connects before the first key. */
export function createKeyTaker(options: HiLoPrismaConnectionOptions, metadata: HiLoPrismaMetadata): KeyTaker {
  const keyed = Object.values(metadata.models).flatMap((m) => (m.key === undefined ? [] : [m.key]));
  const segmentNames = [...new Set(keyed.map((k) => k.segment))];

  // verified blocks probe each model's table (`@@map`, else the model's name) and key column (`@map`), in its
  // `@@schema`, else the schema the driver adapter qualifies tables with (as Prisma's own statements do)
  let adapterSchema: string | undefined;
  const stored = () =>
    Object.entries(metadata.models).flatMap(([name, model]) => {
      if (model.key === undefined) return [];
      const schema = model.schema ?? adapterSchema;
      return [
        {
          segment: model.key.segment,
          table: model.table ?? name,
          column: model.key.column ?? model.key.field,
          ...(schema === undefined ? {} : { schema }),
        },
      ];
    });
  // (`metadata` is in the option names: hilo() reads it)
  const supply = openKeySupply(options, {
    owner: 'hilo()',
    optionNames: PRISMA_OPTION_NAMES,
    columns: stored,
    // the driver adapter's schema is known once the extension is applied, before any key: a client per tenant
    // schema (`new PrismaPg(pool, { schema })`) keeps its store in that schema
    columnsKnownAtBuild: true,
    limits: keyed.map((key) => ({ segment: key.segment, blockSize: key.blockSize, maxKey: fieldMaxKey(key) })),
    example: 'hilo({ metadata, url: process.env.DATABASE_URL })',
    closed: 'This hilo extension was closed with $hilo.close(); create a new client to get more keys.',
    schemaOption: "`@@schema` on the model, or the driver adapter's `schema` option",
    runsOn: { dialects: ['postgres', 'mysql'], why: SQLITE_WHY },
  });
  return {
    useAdapterSchema(schema) {
      adapterSchema = schema;
    },
    async take(segment, count) {
      const generator = await supply.generator();
      return count === 1 ? [await generator.next(segment)] : generator.reserve(segment, count);
    },
    handle: {
      generator: () => supply.generator() as Promise<HiLoGenerator<number> | HiLoGenerator<bigint>>,
      warm: () => supply.warm(segmentNames),
      close: () => supply.close(),
    },
  };
}
