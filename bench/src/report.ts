import type { Result } from './measure.js';
import { formatRatio, formatSpread } from './spread.js';

const fmt = (v: number) => (v >= 1000 ? Math.round(v).toLocaleString('en-US') : v.toPrecision(3));

/**
 * Whether a figure meets its target, judged with its spread: `met` when even the first quartile of the per-round
 * ratios reaches the target, `missed` when even the third quartile stays below it, `open` when the target lies
 * within the interquartile range (more rounds, or a quieter machine, would decide it); empty without a target.
 */
export function verdict(r: Result): '' | 'met' | 'missed' | 'open' {
  if (r.target === undefined || r.ratio === undefined) return '';
  const q1 = r.spread?.q1 ?? r.ratio;
  const q3 = r.spread?.q3 ?? r.ratio;
  if (q1 >= r.target) return 'met';
  if (q3 < r.target) return 'missed';
  return 'open';
}

/** A Markdown table of the results. */
export function renderMarkdown(results: readonly Result[]): string {
  const rows = results.map(
    (r) =>
      `| \`${r.name}\` | ${fmt(r.value)} ${r.unit} | ${r.ratio === undefined ? '' : formatRatio(r.ratio)} | ` +
      `${r.spread === undefined ? '' : formatSpread(r.spread)} | ${r.target === undefined ? '' : `≥ ${r.target}`} | ` +
      `${verdict(r)} | ${r.note ?? ''} |`,
  );
  return [
    '| benchmark | value | ratio | spread of the per-round ratios | target | verdict | note |',
    '| --- | ---: | ---: | --- | ---: | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** The plain-text table `pnpm bench` prints at the end: every figure with its ratio, spread and target. */
export function renderTable(results: readonly Result[]): string {
  const rows = results.map((r) => [
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    r.ratio === undefined ? '' : formatRatio(r.ratio),
    r.spread === undefined ? '' : formatSpread(r.spread),
    r.target === undefined ? '' : `≥ ${r.target}`,
    verdict(r),
  ]);
  const header = ['figure', 'value', 'ratio', 'spread (per-round ratios)', 'target', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ''].join('\n');
}

/**
 * A horizontal bar chart of every result that has a ratio, on a logarithmic scale (ratios run from below 1
 * to thousands), with each target marked: green bars meet their target, orange bars miss it.
 */
export function renderSvg(results: readonly Result[]): string {
  const bars = results.filter((r) => r.ratio !== undefined);
  const width = 820;
  const rowH = 30;
  const left = 190;
  const right = width - 90;
  const lo = 0.1;
  const hi = Math.max(10, ...bars.flatMap((b) => [b.ratio!, b.target ?? 0])) * 2;
  const x = (v: number) =>
    left + ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (right - left);
  const top = 40;
  const height = top + bars.length * rowH + 40;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const ticks = [0.1, 1, 10, 100, 1000, 10000].filter((t) => t <= hi);
  const grid = ticks
    .map(
      (t) =>
        `<line x1="${x(t).toFixed(1)}" y1="${top - 6}" x2="${x(t).toFixed(1)}" y2="${top + bars.length * rowH}" ` +
        `stroke="#ddd"/><text x="${x(t).toFixed(1)}" y="${top + bars.length * rowH + 16}" text-anchor="middle" ` +
        `font-size="11" fill="#666">${t}×</text>`,
    )
    .join('');
  /** The interquartile range of the per-round ratios, as a line across the bar's end. */
  const whisker = (b: Result, y: number) =>
    b.spread === undefined || b.spread.rounds < 2
      ? ''
      : `<line x1="${x(b.spread.q1).toFixed(1)}" y1="${y + 10}" x2="${x(b.spread.q3).toFixed(1)}" y2="${y + 10}" ` +
        `stroke="#111" stroke-width="1.5"/>`;
  const rows = bars.map((b, i) => {
    const y = top + i * rowH;
    const met = b.target === undefined || b.ratio! >= b.target;
    const w = Math.max(1, x(b.ratio!) - left);
    const target =
      b.target === undefined
        ? ''
        : `<line x1="${x(b.target).toFixed(1)}" y1="${y - 2}" x2="${x(b.target).toFixed(1)}" y2="${y + 22}" ` +
          `stroke="#111" stroke-width="2" stroke-dasharray="3,2"/>`;
    return (
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end" font-size="12">${esc(b.name)}</text><rect ` +
      `x="${left}" y="${y}" width="${w.toFixed(1)}" height="20" fill="${met ? '#16a34a' : '#ea580c'}"/>${target}<text ` +
      `x="${(Math.max(left + w, b.target === undefined ? 0 : x(b.target), b.spread ? x(b.spread.q3) : 0) + 6).toFixed(1)}" ` +
      `y="${y + 15}" ` +
      `font-size="12">${b.ratio! >= 100 ? Math.round(b.ratio!) : b.ratio!.toFixed(2)}×</text>${whisker(b, y)}`
    );
  });
  const legend =
    `<text x="10" y="${height - 8}" font-size="11" fill="#444">logarithmic scale; dashed line: target; ` +
    `green: target met, orange: missed; thin line: IQR of the per-round ratios. See bench/results/latest.md</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect ` +
    `width="100%" height="100%" fill="#fff"/><text x="10" y="20" font-size="14" font-weight="bold">hilo ` +
    `benchmark ratios (higher is better)</text>${grid}${rows.join('')}${legend}</svg>\n`
  );
}
