import { status } from 'hilo-core';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

/** Options of `hilo status`. */
export interface StatusOptions extends TargetOptions {
  readonly json?: boolean;
}

function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => `${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`).join('');
}

/**
 * `hilo status`: lists the segments found in the database (rows of the hi table, sequences named
 * `<segment>_hilo_seq`) with their stored value and a sequence's increment. `--source` narrows the list.
 */
export async function runStatus(options: StatusOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    const rows = (await status(target.client, target.tableOptions)).filter(
      (row) => options.source === undefined || row.source === options.source,
    );
    if (options.json) {
      const json = rows.map((r) => ({
        segment: r.segment,
        source: r.source,
        object: r.object,
        // strings: values may exceed what a JSON number holds exactly
        value: r.value === undefined ? null : r.value.toString(),
        increment: r.increment === undefined ? null : r.increment.toString(),
      }));
      await out.write(`${JSON.stringify(json, null, 2)}\n`);
    } else if (rows.length === 0) {
      io.stderr.write('hilo status: no segments found; create some with `hilo init --url URL SEGMENT...`\n');
    } else {
      const header = ['SEGMENT', 'SOURCE', 'OBJECT', 'VALUE', 'INCREMENT'];
      const cells = rows.map((r) => [r.segment, r.source, r.object, r.value?.toString() ?? '-', r.increment?.toString() ?? '-']);
      await out.write(columns([header, ...cells]));
    }
    await out.end();
  } finally {
    await target.close();
  }
}
