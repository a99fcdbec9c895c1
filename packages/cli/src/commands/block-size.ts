import { sequenceSource } from 'hilo-core';
import { DEFAULT_BLOCK_SIZE, type Target } from '../open.js';
import { mismatchErrors } from '../error-messages.js';

/**
 * The block size for `segment`. A table takes any size: `--block-size` or the default. A sequence's block
 * size is its INCREMENT BY: without `--block-size`, an existing sequence's increment is used (so
 * `hilo next orders` works after `hilo init --block-size 1000 orders`); a `--block-size` that differs from
 * it is refused, since it could hand out duplicate keys.
 */
export async function resolveBlockSize(target: Target, segment: string, explicit: number | undefined): Promise<number> {
  if (target.kind !== 'sequence') return explicit ?? DEFAULT_BLOCK_SIZE;
  const sequences = await sequenceSource(target.client, { increment: 1, create: false }).status();
  const existing = sequences.find((row) => row.segment === segment);
  const increment = existing?.increment;
  if (increment === undefined) return explicit ?? DEFAULT_BLOCK_SIZE;
  if (explicit !== undefined && BigInt(explicit) !== increment) {
    throw mismatchErrors.blockSizeNotIncrement(existing!.object, segment, increment, explicit);
  }
  return Number(increment);
}

/**
 * The block size `segment`'s store really has after `hilo init` created it unless it existed: another init (or an
 * application) may have created it a moment before with another one. Without `--block-size` the existing sequence's
 * increment is adopted, as {@link resolveBlockSize} does; with it, a differing increment is refused, so that no init
 * says ready for a sequence it did not make. A table stores no block size: `asked` stands.
 */
export async function createdBlockSize(
  target: Target,
  segment: string,
  asked: number,
  explicit: number | undefined,
): Promise<number> {
  if (target.kind !== 'sequence') return asked;
  const sequences = await sequenceSource(target.client, { increment: 1, create: false }).status();
  const existing = sequences.find((row) => row.segment === segment);
  const increment = existing?.increment;
  if (existing === undefined || increment === undefined || increment === BigInt(asked)) return asked;
  if (explicit === undefined) return Number(increment);
  throw mismatchErrors.initCreatedOther(existing.object, segment, increment, explicit);
}
