import { HiLoConfigurationError, HiLoError, createHiLoGenerator, memorySource } from 'hilo-core';
import { checkInteger } from 'hilo-core/adapter-kit';

describe('checkInteger: the one integer check', () => {
  it('returns an integer within its bounds, and accepts the bounds themselves', () => {
    expect(checkInteger('blockSize', 1)).toBe(1);
    expect(checkInteger('retries', 0, { min: 0 })).toBe(0);
    expect(checkInteger('timeoutMs', 10, { max: 10 })).toBe(10);
  });

  it.each([
    ['zero below the default minimum', 0, {}, 'an integer ≥ 1, got 0'],
    ['a fraction', 1.5, {}, 'an integer ≥ 1, got 1.5'],
    ['a string', '5', {}, 'an integer ≥ 1, got "5"'],
    ['NaN', Number.NaN, { min: 0 }, 'an integer ≥ 0, got NaN'],
    ['an unsafe integer', 2 ** 53, {}, 'an integer ≥ 1, got 9007199254740992'],
    ['a value above max', 11, { max: 10 }, 'an integer from 1 to 10, got 11'],
  ] as const)('refuses %s with a configuration error naming the option', (_, value, bounds, wording) => {
    let caught: unknown;
    try {
      checkInteger('someOption', value, bounds);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HiLoConfigurationError);
    expect((caught as Error).message).toBe(`Expected \`someOption\` to be ${wording}.`);
  });

  it('is what the generator uses: reserve(segment, -1) is a configuration error, not a base HiLoError', async () => {
    const generator = createHiLoGenerator({ source: memorySource() });
    try {
      const error = await generator.reserve('orders', -1).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiLoConfigurationError);
      expect(error).toBeInstanceOf(HiLoError);
      expect((error as Error).message).toBe('Expected `count` to be an integer from 0 to 100000000, got -1.');
    } finally {
      await generator.close();
    }
  });
});
