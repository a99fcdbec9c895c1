import { createHiLoGenerator } from 'hilo-core';
import { LineWriter, Progress, type CliIo } from '../io.js';
import { openTarget, TIMEOUT_MS, type TargetOptions } from '../open.js';
import { resolveBlockSize } from './block-size.js';

/** Options of `hilo next`. */
export interface NextOptions extends TargetOptions {
  readonly blockSize?: number;
  /** How many keys to print. */
  readonly count: number;
}

/** Keys taken from the generator per write: large enough to amortise, small enough to keep memory flat. */
const CHUNK = 16_384;

/**
 * `hilo next`: reserves `count` keys of `segment` and prints them, one per line, in increasing order.
 * Keys are reserved and written chunk by chunk with backpressure, so millions of keys take constant memory.
 * The segment must exist (`hilo init`): a mistyped name must not silently start a new key space at 1.
 */
export async function runNext(segment: string, options: NextOptions, io: CliIo): Promise<void> {
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  const progress = new Progress(io.stderr);
  try {
    target.checkSegments([segment]);
    const blockSize = await resolveBlockSize(target, segment, options.blockSize);
    const source = target.source({ blockSize, create: false });
    // bulk reservations grow blocks up to a chunk (a table row takes any size; a sequence rounds to its increment)
    const generator = createHiLoGenerator({
      source,
      blockSize,
      maxBlockSize: Math.max(blockSize, Math.min(options.count, CHUNK)),
      keyType: 'bigint',
      prefetchAt: false,
      timeoutMs: TIMEOUT_MS,
    });
    try {
      // one attempt: an unreachable database fails at once instead of after every retry
      await generator.warm([segment]);
      let written = 0;
      while (written < options.count) {
        const keys = await generator.reserve(segment, Math.min(options.count - written, CHUNK));
        await out.write(`${keys.join('\n')}\n`);
        written += keys.length;
        progress.update(
          () => `hilo next: ${written.toLocaleString('en')} of ${options.count.toLocaleString('en')} keys`,
        );
      }
    } finally {
      progress.clear();
      // gives the unused tail back where the table can prove nobody reserved after us
      await generator.close();
    }
    await out.end();
  } finally {
    await target.close();
  }
}
