import {
  blockFromValue,
  blocksFromValueRange,
  blocksFromValues,
  floorValue,
  releaseTail,
} from '../src/engine/strategies.js';

describe('strategies: mapping a database value to a block', () => {
  it('pooled-lo: the value is the first key', () => {
    expect(blockFromValue('pooled-lo', 1n, 10n)).toEqual({ first: 1n, last: 10n });
    expect(blockFromValue('pooled-lo', 11n, 10n)).toEqual({ first: 11n, last: 20n });
  });

  it('pooled: the value is the last key', () => {
    expect(blockFromValue('pooled', 10n, 10n)).toEqual({ first: 1n, last: 10n });
    expect(blockFromValue('pooled', 20n, 10n)).toEqual({ first: 11n, last: 20n });
  });

  it('pooled: a value below the increment is clipped to key 1, never below', () => {
    expect(blockFromValue('pooled', 1n, 50n)).toEqual({ first: 1n, last: 1n });
    expect(blockFromValue('pooled', 0n, 50n)).toBeUndefined();
  });

  it('hilo: hi 2 with maxLo 1000 hands out 2000, 2001, 2002, …', () => {
    const block = blockFromValue('hilo', 2n, 1000n);
    expect(block).toEqual({ first: 2000n, last: 2999n });
  });

  it('hilo: hi 0 never hands out key 0', () => {
    expect(blockFromValue('hilo', 0n, 1000n)).toEqual({ first: 1n, last: 999n });
    expect(blockFromValue('hilo', 0n, 1n)).toBeUndefined();
  });

  it('sorts and merges the blocks of several values', () => {
    expect(blocksFromValues('pooled-lo', [21n, 1n, 11n, 51n], 10n)).toEqual([
      { first: 1n, last: 30n },
      { first: 51n, last: 60n },
    ]);
  });

  it('range: the first range is 1–32; one key used and the rest returned, the next range is 2–33', () => {
    // a reservation of 32 advances Max from 0 to 32: the block is the 32 keys up to the new Max
    let max = 32n;
    expect(blockFromValue('range', max, 32n)).toEqual({ first: 1n, last: 32n });
    const cas = releaseTail('range', { first: 2n, last: 32n })!;
    expect(cas).toEqual({ expect: 32n, set: 1n });
    if (max === cas.expect) max = cas.set;
    expect(blockFromValue('range', max + 32n, 32n)).toEqual({ first: 2n, last: 33n });
  });

  it('floor: the next block starts above the largest existing key for every strategy', () => {
    const max = 1234n;
    const inc = 100n;
    expect(blockFromValue('pooled-lo', floorValue('pooled-lo', max, inc), inc)!.first).toBe(1235n);
    expect(blockFromValue('pooled', floorValue('pooled', max, inc), inc)!.first).toBe(1235n);
    expect(blockFromValue('hilo', floorValue('hilo', max, inc), inc)!.first).toBeGreaterThan(max);
    expect(blockFromValue('range', floorValue('range', max, inc) + 1n, 1n)!.first).toBe(1235n);
    expect(blockFromValue('hilo', floorValue('hilo', 0n, inc), inc)!.first).toBe(1n);
  });

  it('releaseTail: pooled-lo gives the tail back to a row holding the next free key; hilo cannot', () => {
    expect(releaseTail('pooled-lo', { first: 5n, last: 10n })).toEqual({ expect: 11n, set: 5n });
    expect(releaseTail('hilo', { first: 5n, last: 10n })).toBeUndefined();
    expect(releaseTail('range', { first: 11n, last: 10n })).toBeUndefined();
  });

  it('blocksFromValueRange: one block for consecutive his, equal to listing them', () => {
    for (const formula of ['hilo', 'marten', 'hibernate-hilo', 'hibernate-legacy-hilo'] as const) {
      for (const [from, to] of [
        [0n, 0n],
        [0n, 3n],
        [1n, 4n],
        [7n, 9n],
      ] as const) {
        const listed = blocksFromValues(
          formula,
          Array.from({ length: Number(to - from + 1n) }, (_, k) => from + BigInt(k)),
          10n,
        );
        expect([formula, from, to, blocksFromValueRange(formula, from, to, 10n)]).toEqual([formula, from, to, listed]);
      }
    }
    // hilo with maxLo 1: hi 0 stands for no key (key 0 is never handed out)
    expect(blocksFromValueRange('hilo', 0n, 2n, 1n)).toEqual([{ first: 1n, last: 2n }]);
  });
});
