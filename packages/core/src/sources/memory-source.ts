import { checkInteger } from '../engine/checks.js';
import type { Block, HiSource, ReserveRequest } from '../engine/types.js';

/** Options of {@link memorySource}. */
export interface MemorySourceOptions {
  /**
   * First key of every segment.
   * @default 1
   */
  start?: number | bigint;
  /**
   * Simulated round-trip time of each reservation, in ms.
   * @default 0
   */
  latencyMs?: number;
}

/** An in-memory hi source, with what it has handed out readable for tests. */
export interface MemorySource extends HiSource {
  /** The next unreserved key of each segment (like RavenDB's `Max + 1`). */
  readonly counters: ReadonlyMap<string, bigint>;
  /** How many reservations each segment received. */
  readonly reservations: ReadonlyMap<string, number>;
}

/**
 * A hi source kept in this process's memory: for tests and single-process use. Several generators over one
 * memory source behave like several processes over one database. Supports `release` with
 * compare-and-set, as a table source does, and `raiseAbove` (never backwards).
 * @example
 * ```ts
 * const generator = createHiLoGenerator({ source: memorySource() });
 * ```
 */
export function memorySource(options: MemorySourceOptions = {}): MemorySource {
  const start = BigInt(options.start ?? 1);
  const latencyMs = options.latencyMs ?? 0;
  checkInteger('latencyMs', latencyMs, { min: 0 });
  const counters = new Map<string, bigint>();
  const reservations = new Map<string, number>();
  return {
    description: 'memory source',
    counters,
    reservations,
    async reserve(segment: string, request: ReserveRequest): Promise<readonly Block[]> {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      else await Promise.resolve();
      const first = counters.get(segment) ?? start;
      const last = first + BigInt(request.size) - 1n;
      counters.set(segment, last + 1n);
      reservations.set(segment, (reservations.get(segment) ?? 0) + 1);
      return [{ first, last }];
    },
    async raiseAbove(segment: string, above: bigint): Promise<boolean> {
      await Promise.resolve();
      if ((counters.get(segment) ?? start) > above) return false;
      counters.set(segment, above + 1n);
      return true;
    },
    async release(segment: string, unused: Block): Promise<boolean> {
      if (counters.get(segment) !== unused.last + 1n) return false;
      counters.set(segment, unused.first);
      return true;
    },
  };
}
