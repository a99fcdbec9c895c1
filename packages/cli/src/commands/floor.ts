import { raiseFloor } from 'hilo-core';
import type { FloorRef } from '../arguments.js';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';
import { resolveBlockSize } from './block-size.js';

/** Options of `hilo floor`. */
export interface FloorOptions extends TargetOptions {
  readonly blockSize?: number;
  readonly from: FloorRef;
  readonly json?: boolean;
}

/**
 * `hilo floor`: raises `segment` so that every future key is above the largest value in `--from`; never
 * lowers it. Creates the segment when missing, so that adopting hilo on a live table is one command.
 */
export async function runFloor(segment: string, options: FloorOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    target.checkSegments([segment]);
    const increment = await resolveBlockSize(target, segment, options.blockSize);
    const { schema, table, column, tenants } = options.from;
    const result = await raiseFloor(target.client, {
      segment,
      table,
      column,
      ...(schema === undefined ? {} : { schema }),
      ...(tenants === undefined ? {} : { tenants }),
      source: target.kind,
      sourceOptions: { ...target.tableOptions, ...(target.kind === 'sequence' ? { increment } : {}) },
    });
    const prefix = tenants ?? schema;
    const where = `${prefix === undefined ? '' : `${prefix}.`}${table}.${column}`;
    const name = JSON.stringify(segment);
    if (options.json) {
      const maxKey = result.maxKey === undefined ? null : result.maxKey.toString();
      await out.write(
        `${JSON.stringify({ segment, source: target.kind, from: where, maxKey, raised: result.raised })}\n`,
      );
    } else if (result.maxKey === undefined) {
      await out.write(`segment ${name}: ${where} has no rows; nothing to raise\n`);
    } else if (result.raised) {
      await out.write(`segment ${name}: raised; every future key is above max(${where}) = ${result.maxKey}\n`);
    } else {
      await out.write(
        `segment ${name}: unchanged; every future key was already above max(${where}) = ${result.maxKey}\n`,
      );
    }
    await out.end();
  } finally {
    await target.close();
  }
}
