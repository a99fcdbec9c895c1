import { HiLoConfigurationError, type HiLoGenerator } from 'hilo-core';
import type { HiLoPrismaMetadata } from './metadata.js';

/** Where the extension's keys come from: exactly one of `url`, `client` or `generator`. */
export interface HiLoPrismaConnectionOptions {
  /**
   * A generator you created and own (`createHiLoGenerator`, `createHiLo`); hilo neither warms nor closes it.
   * @example
   * ```ts
   * hilo({ metadata, generator: createHiLoGenerator({ source: memorySource(), keyType: 'bigint' }) })
   * ```
   */
  generator?: HiLoGenerator<number> | HiLoGenerator<bigint>;
}

/** What `prisma.$hilo` offers. */
export interface HiLoPrismaHandle {
  /** The generator behind the extension (created on first use when hilo owns it). */
  generator(): HiLoGenerator<number> | HiLoGenerator<bigint>;
  /** Reserves a block for each hi/lo model now, so the first inserts do not wait; fails fast when the database is unreachable. */
  warm(): Promise<void>;
  /** Closes what hilo created (generator and connection); a generator or client you passed in stays open. */
  close(): Promise<void>;
}

/** Hands out keys by segment and owns the generator's life cycle. */
export interface KeySupply {
  take(segment: string, count: number): Promise<readonly (number | bigint)[]>;
  readonly handle: HiLoPrismaHandle;
}

/** Validates the connection options and builds the key supply; nothing connects before the first key. */
export function createKeySupply(options: HiLoPrismaConnectionOptions, metadata: HiLoPrismaMetadata): KeySupply {
  const generator = options.generator;
  if (generator === undefined || typeof generator.reserve !== 'function') {
    throw HiLoConfigurationError.invalidOption('generator', 'a HiLoGenerator (createHiLoGenerator(...))', generator);
  }
  const segments = [
    ...new Set(Object.values(metadata.models).flatMap((m) => (m.key === undefined ? [] : [m.key.segment]))),
  ];
  const gen = generator as HiLoGenerator<number | bigint>;
  return {
    async take(segment, count) {
      return count === 1 ? [await gen.next(segment)] : gen.reserve(segment, count);
    },
    handle: {
      generator: () => generator,
      warm: () => gen.warm(segments),
      async close() {},
    },
  };
}
