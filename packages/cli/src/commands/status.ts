import { segmentStatus } from 'hilo-core';
import { BIGINT_MAX } from 'hilo-core/adapter-kit';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

/** Options of `hilo status`. */
export interface StatusOptions extends TargetOptions {
  readonly json?: boolean;
  /** The largest key the key columns hold (`--max-key`); default bigint's. */
  readonly maxKey?: bigint;
}

/**
 * The highest key a segment's stored value stands for: a sequence's value is the first key of its latest
 * block (pooled-lo) or its last (pooled), so value + increment − 1 bounds both; a hi-table row holds the next
 * value to hand out.
 */
function highestKey(row: { value?: bigint; increment?: bigint; source: string }): bigint | undefined {
  if (row.value === undefined) return undefined;
  return row.source === 'sequence' && row.increment !== undefined ? row.value + row.increment - 1n : row.value;
}

/** Fraction of `maxKey` the segment has reached. */
function used(row: { value?: bigint; increment?: bigint; source: string }, maxKey: bigint): number | undefined {
  const highest = highestKey(row);
  return highest === undefined ? undefined : Number(highest) / Number(maxKey);
}

const percent = (fraction: number | undefined) =>
  fraction === undefined ? '-' : `${(fraction * 100).toFixed(fraction < 0.001 ? 4 : 1)} %`;

function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/**
 * `hilo status`: lists the segments found in the database (rows of the hi table, sequences named
 * `<segment>_hilo_seq`) with their stored value, a sequence's increment, and how much of the key column's
 * range (`--max-key`, default bigint) the segment has used; 90 % or more is also reported on stderr.
 * `--source` narrows the list.
 */
export async function runStatus(options: StatusOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    const rows = (await segmentStatus(target.client, target.tableOptions)).filter(
      (row) => options.source === undefined || row.source === options.source,
    );
    const maxKey = options.maxKey ?? BIGINT_MAX;
    if (options.json) {
      const json = rows.map((r) => ({
        segment: r.segment,
        source: r.source,
        object: r.object,
        // strings: values may exceed what a JSON number holds exactly
        value: r.value === undefined ? null : r.value.toString(),
        increment: r.increment === undefined ? null : r.increment.toString(),
        maxKey: maxKey.toString(),
        used: used(r, maxKey) ?? null,
      }));
      await out.write(`${JSON.stringify(json, null, 2)}\n`);
    } else if (rows.length === 0) {
      io.stderr.write('hilo status: no segments found; create some with `hilo init --url URL SEGMENT...`\n');
    } else {
      const header = ['SEGMENT', 'SOURCE', 'OBJECT', 'VALUE', 'INCREMENT', 'USED'];
      const cells = rows.map((r) => [
        r.segment,
        r.source,
        r.object,
        r.value?.toString() ?? '-',
        r.increment?.toString() ?? '-',
        percent(used(r, maxKey)),
      ]);
      await out.write(columns([header, ...cells]));
      const crowded = rows.filter((r) => (used(r, maxKey) ?? 0) >= 0.9);
      for (const r of crowded) {
        io.stderr.write(
          `hilo status: segment "${r.segment}" has used ${percent(used(r, maxKey))} of its keys up to ` +
            `${maxKey}; widen the key column before inserts fail\n`,
        );
      }
    }
    await out.end();
  } finally {
    await target.close();
  }
}
