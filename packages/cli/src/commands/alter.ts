import { alterBlockSize } from 'hilo-core';
import { LineWriter, type CliIo } from '../io.js';
import { openTarget, type TargetOptions } from '../open.js';

/** Options of `hilo alter`. */
export interface AlterOptions extends TargetOptions {
  readonly blockSize: number;
  readonly json?: boolean;
}

/**
 * `hilo alter`: changes a sequence's INCREMENT BY so that the next block starts after the last one handed out.
 * A table source takes any block size (it is the applications' `blockSize`), so there is nothing to change.
 */
export async function runAlter(segment: string, options: AlterOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  try {
    target.checkSegments([segment]);
    const name = JSON.stringify(segment);
    if (target.kind === 'table') {
      await out.write(
        options.json
          ? `${JSON.stringify({ segment, source: 'table', blockSize: options.blockSize, changed: false })}\n`
          : `segment ${name}: a table source takes any block size; nothing to change (set blockSize ${options.blockSize} ` +
              `in the applications)\n`,
      );
    } else {
      const result = await alterBlockSize(target.client, { segment, blockSize: options.blockSize });
      const changed = result.from !== result.to;
      await out.write(
        options.json
          ? `${JSON.stringify({ segment, source: 'sequence', from: Number(result.from), to: Number(result.to), changed })}\n`
          : changed
            ? `segment ${name}: INCREMENT BY ${result.from} → ${result.to}; the next block starts after the last one handed out\n`
            : `segment ${name}: INCREMENT BY is already ${result.to}; nothing to change\n`,
      );
    }
    await out.end();
  } finally {
    await target.close();
  }
}
