// "Close what we opened": a generator tied to the connection an adapter opened for it.
import type { HiLoGenerator } from '../engine/generator.js';

/** A generator together with what was opened for it, closed as one. */
export interface OwnedGenerator<K extends number | bigint = number | bigint> {
  /** The generator, built on what was opened for it. */
  readonly generator: HiLoGenerator<K>;
  /** Closes the generator (returning unused keys while the connection is still open), then releases. */
  close(): Promise<void>;
}

/**
 * Builds a generator with `build` and ties `release` (closing a pool or connection the adapter opened for it)
 * to its life: released at once when `build` throws, else after the generator closes, even when that fails.
 * The one "close what we opened" of every adapter (`openKeySupply` uses it; an adapter rarely needs it
 * directly).
 * @example
 * ```ts
 * const pool = await connect(url);
 * const owned = await ownGenerator(() => createHiLo({ client: pool }), () => pool.close());
 * ```
 */
export async function ownGenerator<K extends number | bigint>(
  build: () => HiLoGenerator<K>,
  release: () => unknown,
): Promise<OwnedGenerator<K>> {
  let generator: HiLoGenerator<K>;
  try {
    generator = build();
  } catch (error) {
    await release();
    throw error;
  }
  return {
    generator,
    async close() {
      try {
        await generator.close();
      } finally {
        await release();
      }
    },
  };
}
