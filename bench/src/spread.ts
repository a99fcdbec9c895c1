// How steady a ratio is: every ratio figure is measured as paired rounds (the two sides back to back, their order
// alternating), one ratio per round, and reported as the median of those per-round ratios with their spread. Pure
// arithmetic, tested in bench/test/spread.test.ts.

/** The spread of a figure's per-round ratios, as written to results/latest.json next to the ratio. */
export interface Spread {
  /** How many paired rounds the ratio is the median of. */
  readonly rounds: number;
  readonly min: number;
  /** First quartile of the per-round ratios. */
  readonly q1: number;
  readonly median: number;
  /** Third quartile of the per-round ratios. */
  readonly q3: number;
  readonly max: number;
  /** `(q3 − q1) / median`: the interquartile range relative to the figure, e.g. 0.06 for ±3 %. */
  readonly relativeIqr: number;
}

/**
 * The q-th quantile (0–1) of `sorted` (ascending), interpolated linearly between the two nearest ranks (the
 * "R-7" definition spreadsheets use), so that the median of an even count is the mean of the middle two.
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of no values');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile must be within 0–1, got ${q}`);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** The median of `values`, in any order. */
export function median(values: readonly number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

/** Median, quartiles and range of `ratios` (one per paired round). */
export function spreadOf(ratios: readonly number[]): Spread {
  if (ratios.length === 0) throw new RangeError('a spread needs at least one round');
  if (!ratios.every((r) => Number.isFinite(r) && r > 0))
    throw new RangeError(`per-round ratios must be positive finite numbers, got ${ratios.join(', ')}`);
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = quantile(sorted, 0.5);
  const q1 = quantile(sorted, 0.25);
  const q3 = quantile(sorted, 0.75);
  return {
    rounds: sorted.length,
    min: sorted[0]!,
    q1,
    median: mid,
    q3,
    max: sorted[sorted.length - 1]!,
    relativeIqr: (q3 - q1) / mid,
  };
}

/**
 * Per-round ratios `numerator[i] / denominator[i]` of two sides measured in the same rounds (the same length, round
 * `i` of each side run back to back).
 */
export function pairedRatios(numerator: readonly number[], denominator: readonly number[]): number[] {
  if (numerator.length !== denominator.length || numerator.length === 0)
    throw new RangeError(
      `paired ratios need the same number of rounds on both sides, got ${numerator.length} and ${denominator.length}`,
    );
  return numerator.map((n, i) => n / denominator[i]!);
}

/**
 * The figure of two sides measured in paired rounds: the median of the per-round ratios `numerator[i] /
 * denominator[i]`, and their spread. Spread `ratio` and `spread` into a result.
 */
export function pairedRatio(
  numerator: readonly number[],
  denominator: readonly number[],
): { ratio: number; spread: Spread } {
  const spread = spreadOf(pairedRatios(numerator, denominator));
  return { ratio: spread.median, spread };
}

/** A ratio as the table prints it: two decimals below 100, whole numbers above. */
export function formatRatio(ratio: number): string {
  return ratio >= 100 ? Math.round(ratio).toLocaleString('en-US') : ratio.toFixed(2);
}

/** `IQR 0.98–1.07, range 0.91–1.12, 9 rounds`: how the printed table and latest.md show a spread. */
export function formatSpread(s: Spread): string {
  if (s.rounds === 1) return '1 round';
  return (
    `IQR ${formatRatio(s.q1)}–${formatRatio(s.q3)}, range ${formatRatio(s.min)}–${formatRatio(s.max)}, ` +
    `${s.rounds} rounds`
  );
}

/**
 * Runs `rounds` paired rounds of the sides `a` and `b`, alternating which goes first (A B, B A, A B, …) so that
 * neither side always runs after the other's garbage or in the later half of a change in machine load, and returns
 * each side's measurement per round. Before each timed side it collects garbage when Node runs with
 * `--expose-gc` (`pnpm bench` does), so that no side pays for the garbage of the side before it.
 */
export async function pairedRounds<T>(
  rounds: number,
  a: (round: number) => Promise<T> | T,
  b: (round: number) => Promise<T> | T,
): Promise<{ a: T[]; b: T[] }> {
  if (!Number.isSafeInteger(rounds) || rounds < 1)
    throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  const out = { a: [] as T[], b: [] as T[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      collectGarbage();
      out[side].push(await (side === 'a' ? a : b)(r));
    }
  }
  return out;
}

/** `global.gc()` when Node runs with `--expose-gc`; nothing otherwise. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
