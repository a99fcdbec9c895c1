// The arithmetic behind every ratio `pnpm bench` reports: per-round ratios, their median and spread, the order of
// paired rounds, and how a spread is printed and judged against a target. No timing: every value is given.
import {
  formatRatio,
  formatSpread,
  median,
  pairedRatio,
  pairedRatios,
  pairedRounds,
  quantile,
  spreadOf,
} from '../src/spread.js';
import { renderMarkdown, renderTable, verdict } from '../src/report.js';
import type { Result } from '../src/measure.js';

describe('quantile and median', () => {
  it('interpolate between the nearest ranks', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([1, 2, 3, 4], 0)).toBe(1);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
    expect(quantile([7], 0.75)).toBe(7);
  });

  it('median sorts a copy and leaves the input as it was', () => {
    const values = [3, 1, 2, 10];
    expect(median(values)).toBe(2.5);
    expect(values).toEqual([3, 1, 2, 10]);
  });

  it('refuse no values and a quantile outside 0–1', () => {
    expect(() => quantile([], 0.5)).toThrow(RangeError);
    expect(() => quantile([1], 1.5)).toThrow(/within 0–1/);
    expect(() => quantile([1], Number.NaN)).toThrow(/within 0–1/);
  });
});

describe('spreadOf', () => {
  it('gives the median, quartiles, range and relative IQR of the per-round ratios', () => {
    const s = spreadOf([1.2, 0.8, 1.0, 1.1, 0.9]);
    expect(s).toEqual({
      rounds: 5,
      min: 0.8,
      q1: 0.9,
      median: 1.0,
      q3: 1.1,
      max: 1.2,
      relativeIqr: expect.closeTo(0.2, 10) as number,
    });
  });

  it('is not moved by one outlying round, where a mean would be', () => {
    const steady = spreadOf([1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01]);
    const withSpike = spreadOf([1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 3.5]);
    expect(withSpike.median).toBe(steady.median);
    expect(withSpike.max).toBe(3.5);
    expect(withSpike.q3).toBeCloseTo(1.015, 10);
  });

  it('of one round is that round', () => {
    expect(spreadOf([1.4])).toMatchObject({
      rounds: 1,
      min: 1.4,
      q1: 1.4,
      median: 1.4,
      q3: 1.4,
      max: 1.4,
      relativeIqr: 0,
    });
  });

  it('refuses no rounds and ratios that are not positive finite numbers', () => {
    expect(() => spreadOf([])).toThrow(RangeError);
    expect(() => spreadOf([1, Number.POSITIVE_INFINITY])).toThrow(/positive finite/);
    expect(() => spreadOf([1, 0])).toThrow(/positive finite/);
    expect(() => spreadOf([1, Number.NaN])).toThrow(/positive finite/);
  });
});

describe('pairedRatios and pairedRatio', () => {
  it('divide round by round, not median by median', () => {
    // the machine slows down in rounds 2 and 3 for both sides alike: the per-round ratio stays 2
    const uuid = [200, 400, 600];
    const hilo = [100, 200, 300];
    expect(pairedRatios(uuid, hilo)).toEqual([2, 2, 2]);
    expect(pairedRatio(uuid, hilo)).toMatchObject({ ratio: 2, spread: { min: 2, max: 2, rounds: 3 } });
  });

  it('takes the median of the per-round ratios as the figure', () => {
    const { ratio, spread } = pairedRatio([110, 90, 100, 300], [100, 100, 100, 100]);
    expect(ratio).toBeCloseTo(1.05, 10);
    expect(spread.min).toBeCloseTo(0.9, 10);
    expect(spread.max).toBe(3);
  });

  it('refuse sides of different lengths', () => {
    expect(() => pairedRatios([1, 2], [1])).toThrow(/same number of rounds on both sides, got 2 and 1/);
    expect(() => pairedRatios([], [])).toThrow(RangeError);
  });
});

describe('pairedRounds', () => {
  it('alternates which side goes first, A B, B A, A B', async () => {
    const calls: string[] = [];
    const out = await pairedRounds(
      3,
      (r) => (calls.push(`a${r}`), r * 10),
      async (r) => (calls.push(`b${r}`), r * 10 + 1),
    );
    expect(calls).toEqual(['a0', 'b0', 'b1', 'a1', 'a2', 'b2']);
    expect(out).toEqual({ a: [0, 10, 20], b: [1, 11, 21] });
  });

  it('refuses a round count that is not a positive integer', async () => {
    await expect(
      pairedRounds(
        0,
        () => 1,
        () => 1,
      ),
    ).rejects.toThrow(/positive integer, got 0/);
    await expect(
      pairedRounds(
        1.5,
        () => 1,
        () => 1,
      ),
    ).rejects.toThrow(RangeError);
  });
});

describe('printing and judging a spread', () => {
  const figure = (ratio: number, q1: number, q3: number, target?: number): Result => ({
    name: 'orm.x.graph_vs_uuidv7',
    value: 250,
    unit: 'ms',
    ratio,
    spread: { rounds: 10, min: q1 - 0.1, q1, median: ratio, q3, max: q3 + 0.1, relativeIqr: (q3 - q1) / ratio },
    ...(target === undefined ? {} : { target }),
  });

  it('formats ratios with two decimals below 100 and whole numbers above', () => {
    expect(formatRatio(1.056)).toBe('1.06');
    expect(formatRatio(1605.15)).toBe('1,605');
    expect(formatSpread(spreadOf([0.9, 1.0, 1.1, 1.2, 1.3]))).toBe('IQR 1.00–1.20, range 0.90–1.30, 5 rounds');
    expect(formatSpread(spreadOf([1.4]))).toBe('1 round');
  });

  it('calls a target met or missed only when the whole interquartile range is on one side of it', () => {
    expect(verdict(figure(1.1, 1.02, 1.15, 1))).toBe('met');
    expect(verdict(figure(0.95, 0.9, 0.98, 1))).toBe('missed');
    expect(verdict(figure(1.01, 0.97, 1.06, 1))).toBe('open');
    expect(verdict(figure(1.01, 0.97, 1.06))).toBe('');
    expect(verdict({ name: 'x', value: 1, unit: 'ms', ratio: 2, target: 1 })).toBe('met');
  });

  it('shows the spread next to each figure in the Markdown and the printed table', () => {
    const results: Result[] = [
      figure(1.1, 1.02, 1.15, 1),
      { name: 'pg.nextval_per_id', value: 8641.7, unit: 'keys/s' },
    ];
    const md = renderMarkdown(results).split('\n');
    expect(md[0]).toBe('| benchmark | value | ratio | spread of the per-round ratios | target | verdict | note |');
    expect(md[2]).toBe(
      '| `orm.x.graph_vs_uuidv7` | 250 ms | 1.10 | IQR 1.02–1.15, range 0.92–1.25, 10 rounds | ≥ 1 | met |  |',
    );
    expect(md[3]).toBe('| `pg.nextval_per_id` | 8,642 keys/s |  |  |  |  |  |');
    const table = renderTable(results).split('\n');
    expect(table[0]).toMatch(/^figure\s+value\s+ratio\s+spread \(per-round ratios\)\s+target\s+verdict$/);
    expect(table[2]).toMatch(
      /^orm\.x\.graph_vs_uuidv7\s+250 ms\s+1\.10\s+IQR 1\.02–1\.15, range 0\.92–1\.25, 10 rounds\s+≥ 1\s+met$/,
    );
  });
});
