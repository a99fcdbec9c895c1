import type { Result } from './measure.js';

const fmt = (v: number) => (v >= 1000 ? Math.round(v).toLocaleString('en-US') : v.toPrecision(3));

/** A Markdown table of the results. */
export function renderMarkdown(results: readonly Result[]): string {
  const rows = results.map((r) => `| \`${r.name}\` | ${fmt(r.value)} ${r.unit} | ${r.ratio === undefined ? '' : r.ratio.toFixed(2)} | ${r.note ?? ''} |`);
  return ['| benchmark | value | ratio | note |', '| --- | ---: | ---: | --- |', ...rows, ''].join('\n');
}

/** A horizontal bar chart of every result that has a ratio (log-free, ratios up to the largest). */
export function renderSvg(results: readonly Result[]): string {
  const bars = results.filter((r) => r.ratio !== undefined);
  const width = 760;
  const rowH = 28;
  const left = 220;
  const max = Math.max(1, ...bars.map((b) => b.ratio!));
  const height = 40 + bars.length * rowH;
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const rows = bars.map((b, i) => {
    const y = 30 + i * rowH;
    const w = Math.max(1, ((width - left - 80) * b.ratio!) / max);
    return `<text x="${left - 8}" y="${y + 15}" text-anchor="end" font-size="12">${esc(b.name)}</text><rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="20" fill="#3b82f6"/><text x="${left + w + 6}" y="${y + 15}" font-size="12">${b.ratio!.toFixed(2)}×</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><text x="10" y="18" font-size="14" font-weight="bold">hilo benchmark ratios (higher is better)</text>${rows.join('')}</svg>\n`;
}
