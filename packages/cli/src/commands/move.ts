import { moveColumn } from 'hilo-core';
import type { ColumnRef } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

/** Options of `hilo move`. */
export interface MoveOptions extends TargetOptions {
  /** `--to SEGMENT`: the segment that keys the column from now on. */
  readonly to: string;
  readonly json?: boolean;
}

/**
 * `hilo move`: moves a key column to another segment (a deploy that renamed a segment), so that processes of the
 * new segment may key it (the store records one segment per column, DESIGN rule 13): the new segment's store is
 * raised above the old one's and above the column's largest key before the record moves, and processes of the old
 * segment are refused at their next reservation. An interrupted move is finished by running it again.
 */
export async function runMove(column: ColumnRef, options: MoveOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    target.checkSegments([options.to]);
    const result = await moveColumn(target.client, {
      table: column.table,
      column: column.column,
      ...(column.schema === undefined ? {} : { schema: column.schema }),
      to: options.to,
      source: target.kind,
      sourceOptions: target.tableOptions,
    });
    const to = JSON.stringify(result.to);
    if (options.json) {
      const { from, above, moved } = result;
      const json = {
        column: result.column,
        from: from ?? null,
        to: result.to,
        above: above?.toString() ?? null,
        moved,
      };
      await out.write(`${JSON.stringify(json)}\n`);
    } else if (!result.moved) {
      await out.write(`column ${result.column}: already keyed by segment ${to}; nothing to move\n`);
    } else {
      const from = result.from === undefined ? 'no segment' : `segment ${JSON.stringify(result.from)}`;
      const above = result.above === undefined ? '' : `; every future key of ${to} is above ${result.above}`;
      await out.write(`column ${result.column}: moved from ${from} to segment ${to}${above}\n`);
    }
    await out.end();
  } finally {
    await target.close();
  }
}
