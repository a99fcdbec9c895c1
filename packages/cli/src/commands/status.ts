import { segmentStatus, sqlStoredKeys, type SegmentStatus } from 'hilo-core';
import { BIGINT_MAX } from 'hilo-core/adapter-kit';
import type { GuardRef } from '../arguments.js';
import { StoreBehindFound } from './check.js';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

/** Options of `hilo status`. */
export interface StatusOptions extends TargetOptions {
  readonly json?: boolean;
  /**
   * The largest key the key columns hold (`--max-key`); by default the one the catalog gives for each segment's
   * recorded columns, else bigint's.
   */
  readonly maxKey?: bigint;
  /** `--stored SEGMENT=TABLE[.COLUMN]`: where segments' keys are stored, to show a store behind them. */
  readonly stored?: readonly GuardRef[];
}

/**
 * Whether the stored value says the store is behind `largest`, the largest stored key: a hi-table row holds the
 * next key to hand out, a sequence's value stands for blocks up to value + increment − 1 (a sequence never used
 * yet stands for none). Reading only, it cannot see a store behind by less than one block on MariaDB (whose value
 * is the next one not cached); `hilo check` checks exactly, as a starting process would.
 */
function behind(row: SegmentStatus, largest: bigint): boolean {
  if (row.value === undefined) return true;
  if (row.source === 'table') return largest >= row.value;
  return largest > (highestKey(row) ?? 0n);
}

/**
 * The highest key a segment's stored value stands for: a sequence's value is the first key of its latest
 * block (pooled-lo) or its last (pooled), so value + increment − 1 bounds both; a hi-table row holds the next
 * value to hand out.
 */
function highestKey(row: Pick<SegmentStatus, 'value' | 'increment' | 'source'>): bigint | undefined {
  if (row.value === undefined) return undefined;
  return row.source === 'sequence' && row.increment !== undefined ? row.value + row.increment - 1n : row.value;
}

/** Fraction of `maxKey` the segment has reached. */
function used(row: Pick<SegmentStatus, 'value' | 'increment' | 'source'>, maxKey: bigint): number | undefined {
  const highest = highestKey(row);
  return highest === undefined ? undefined : Number(highest) / Number(maxKey);
}

/**
 * `used` for `--json`: the fraction to six decimal places, so a segment that has barely started reads `0` (or
 * `0.000001`) instead of `4.656612875245797e-9`; it stays a number, so `used >= 0.9` still works in a script.
 */
const usedInJson = (fraction: number | undefined): number | null =>
  fraction === undefined ? null : Number(fraction.toFixed(6));

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
 * `<segment>_hilo_seq`) with the key columns recorded for each, their stored value, a sequence's increment, and how
 * much of the key column's range the segment has used: up to `--max-key`, else the largest key the recorded columns'
 * types hold (the catalog's; an `integer` column's 2147483647), else bigint's. 90 % or more is also reported on
 * stderr.
 * `--source` narrows the list. With `--stored SEGMENT=TABLE[.COLUMN]`, a segment whose store is behind the keys
 * stored in that column is shown as `BEHIND` (and on stderr, with the fix), and the command exits 1.
 */
export async function runStatus(options: StatusOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    const rows = (await segmentStatus(target.client, target.tableOptions)).filter(
      (row) => options.source === undefined || row.source === options.source,
    );
    const maxKeyOf = (row: SegmentStatus): bigint => options.maxKey ?? row.keyMax ?? BIGINT_MAX;
    const problems = new Map<string, string>();
    const stored = options.stored ?? [];
    if (stored.length > 0) {
      const keys = sqlStoredKeys(
        target.client,
        stored.map((ref) => ({
          segment: ref.segment ?? ref.table,
          table: ref.table,
          column: ref.column,
          schema: ref.schema,
        })),
      );
      const signal = new AbortController().signal;
      for (const row of rows) {
        const largest = await keys.largest(row.segment, signal);
        if (largest === undefined || !behind(row, largest.key)) continue;
        problems.set(
          row.segment,
          `segment "${row.segment}" is behind its stored keys: ${largest.table}.${largest.column} holds ${largest.key}, ` +
            `the store ${row.value === undefined ? 'was never used' : `is at ${row.value}`}; run \`hilo check\` to ` +
            `confirm, and \`hilo floor --url URL --source ${row.source} ${row.segment} --from ${largest.table}.` +
            `${largest.column}\` to fix it`,
        );
      }
    }
    if (options.json) {
      const json = rows.map((r) => ({
        segment: r.segment,
        source: r.source,
        object: r.object,
        columns: r.columns ?? [],
        // strings: values may exceed what a JSON number holds exactly
        value: r.value === undefined ? null : r.value.toString(),
        increment: r.increment === undefined ? null : r.increment.toString(),
        maxKey: maxKeyOf(r).toString(),
        used: usedInJson(used(r, maxKeyOf(r))),
        ...(stored.length === 0 ? {} : { behind: problems.has(r.segment) }),
      }));
      await out.write(`${JSON.stringify(json, null, 2)}\n`);
    } else if (rows.length === 0) {
      io.stderr.write('hilo status: no segments found; create some with `hilo init --url URL SEGMENT...`\n');
    } else {
      const header = [
        'SEGMENT',
        'SOURCE',
        'OBJECT',
        'COLUMN',
        'VALUE',
        'INCREMENT',
        'USED',
        'MAX KEY',
        ...(stored.length > 0 ? ['STORE'] : []),
      ];
      const cells = rows.map((r) => [
        r.segment,
        r.source,
        r.object,
        r.columns === undefined || r.columns.length === 0 ? '-' : r.columns.join(','),
        r.value?.toString() ?? '-',
        r.increment?.toString() ?? '-',
        percent(used(r, maxKeyOf(r))),
        maxKeyOf(r).toString(),
        ...(stored.length > 0 ? [problems.has(r.segment) ? 'BEHIND' : 'ok'] : []),
      ]);
      await out.write(columns([header, ...cells]));
      const crowded = rows.filter((r) => (used(r, maxKeyOf(r)) ?? 0) >= 0.9);
      for (const r of crowded) {
        io.stderr.write(
          `hilo status: segment "${r.segment}" has used ${percent(used(r, maxKeyOf(r)))} of its keys up to ` +
            `${maxKeyOf(r)}; widen the key column before inserts fail\n`,
        );
      }
      for (const problem of problems.values()) io.stderr.write(`hilo status: ${problem}\n`);
    }
    await out.end();
    if (problems.size > 0) throw new StoreBehindFound(problems.size, rows.length);
  } finally {
    await target.close();
  }
}
