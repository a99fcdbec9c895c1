import type { HiLoGenerator } from '../engine/generator.js';

/**
 * `generator` for a graph load that holds SQLite's one write lock: a batch's keys must be in memory already (a
 * reservation, on a connection of hilo's own, would wait on the load's own lock), else the batch is refused at once
 * with the error `refuse` makes (the adapter's, naming its `ensure()`). Every other method is the generator's own.
 * @example
 * ```ts
 * loadGraph({ target, tables, input, generator: keysInMemoryOnly(generator, (segment) => new Error(segment)) });
 * ```
 */
export function keysInMemoryOnly<K extends number | bigint>(
  generator: HiLoGenerator<K>,
  refuse: (segment: string, needed: number, available: number) => Error,
): HiLoGenerator<K> {
  return new Proxy(generator, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name);
      if (name !== 'reserve') return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      return (segment: string, count: number) => {
        const available = target.stats()[segment]?.keysAvailable ?? 0;
        if (available < count) throw refuse(segment, count, available);
        return target.reserve(segment, count);
      };
    },
  });
}
