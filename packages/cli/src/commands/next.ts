import { createHiLoGenerator, sqlStoredKeys } from 'hilo-core';
import { recordColumns } from 'hilo-core/adapter-kit';
import { requireStoredTables } from 'hilo-core/adapter-kit';
import type { GuardRef } from '../arguments.js';
import { LineWriter, Progress, type CliIo } from '../io.js';
import { openTarget, TIMEOUT_MS, type TargetOptions } from '../open.js';
import { resolveBlockSize } from './block-size.js';
import { configurationErrors } from '../error-messages.js';

/** Options of `hilo next`. */
export interface NextOptions extends TargetOptions {
  readonly blockSize?: number;
  /** How many keys to print. */
  readonly count: number;
  /** `--stored SEGMENT=TABLE[.COLUMN]`: where the segment's keys are stored; each block is checked against them. */
  readonly stored?: readonly GuardRef[];
  /** `--unverified`: print keys without checking them against stored rows. */
  readonly unverified?: boolean;
}

/**
 * The columns `--stored` names, checked against the segment drawn from: keys are verified unless the caller says
 * `--unverified` on purpose (DESIGN rule 8: a check is never off in silence), so a script that names neither is bad
 * usage, not a run that prints keys nobody checked.
 */
export function storedColumns(segment: string, options: Pick<NextOptions, 'stored' | 'unverified'>) {
  const stored = options.stored ?? [];
  if (stored.length === 0 && options.unverified !== true) {
    throw configurationErrors.storedColumnsRequired(segment);
  }
  return stored.map((ref) => {
    const named = ref.segment ?? ref.table;
    if (named !== segment) {
      throw configurationErrors.storedOtherSegment(named, ref.table, ref.column, segment);
    }
    return { segment, table: ref.table, column: ref.column, schema: ref.schema };
  });
}

/** Keys taken from the generator per write: large enough to amortise, small enough to keep memory flat. */
const CHUNK = 16_384;

/**
 * `hilo next`: reserves `count` keys of `segment` and prints them, one per line, in increasing order.
 * Keys are reserved and written chunk by chunk with backpressure, so millions of keys take constant memory.
 * The segment must exist (`hilo init`): a mistyped name must not silently start a new key space at 1.
 * With `--stored`, every block is checked against the stored keys before a key of it is printed (hilo-core's
 * verified blocks, as an application starting does): a store behind them fails with `HiLoStoreBehindError`,
 * naming `hilo floor`, and prints none of that block. Without `--stored`, `--unverified` is required.
 */
export async function runNext(segment: string, options: NextOptions, io: CliIo): Promise<void> {
  const columns = storedColumns(segment, options);
  const target = await openTarget(options);
  const out = new LineWriter(io.stdout);
  const progress = new Progress(io.stderr);
  try {
    target.checkSegments([segment]);
    // a --stored table that does not exist would check nothing: refused, not counted as empty
    await requireStoredTables(target.client, columns);
    const blockSize = await resolveBlockSize(target, segment, options.blockSize);
    const storedKeys = columns.length === 0 ? undefined : sqlStoredKeys(target.client, columns);
    // the store records the column --stored names for the segment, and refuses it when another segment keys it
    const source = recordColumns(target.client, target.source({ blockSize, create: false }), storedKeys);
    // bulk reservations grow blocks up to a chunk (a table row takes any size; a sequence rounds to its increment)
    const generator = createHiLoGenerator({
      source,
      blockSize,
      maxBlockSize: Math.max(blockSize, Math.min(options.count, CHUNK)),
      keyType: 'bigint',
      prefetchAt: false,
      timeoutMs: TIMEOUT_MS,
      ...(storedKeys === undefined ? {} : { storedKeys }),
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
