// Segments from what an adapter finds in the ORM's mapping: the segment a table's keys come from, and each
// segment's block size and largest key from its key columns.
import { HiLoConfigurationError } from '../errors.js';
import { configurationErrors } from '../error-messages.js';

/** One key column an adapter found: its segment, the block size it declares, and the largest key it holds. */
export interface KeyColumnLimit {
  readonly segment: string;
  readonly blockSize?: number | undefined;
  readonly maxKey: bigint;
  /** Where the column's `blockSize` was declared (`Entity.property`), for the error when two disagree. */
  readonly where?: string;
}

/** Per-segment generator options, as {@link segmentsForColumns} builds them. */
export type SegmentLimits = Record<string, { blockSize?: number; maxBlockSize?: number; maxKey?: number | bigint }>;

/**
 * The generator's `segments` option for an adapter's key columns: each segment takes the block size a column
 * declares and stops at what its narrowest column holds, lowered further by the `maxKey` the user set (for
 * the segment, or for all), so the headroom warning fires at 90 % of what the column can store. A malformed
 * user `maxKey` is left alone for the generator to refuse by name.
 * @throws HiLoConfigurationError when two columns of one segment declare different block sizes.
 */
export function segmentsForColumns(
  columns: Iterable<KeyColumnLimit>,
  user: { readonly maxKey?: unknown; readonly segments?: SegmentLimits | undefined } = {},
): SegmentLimits {
  const result: SegmentLimits = { ...user.segments };
  const seen = new Set<string>();
  const declared = new Map<string, { blockSize: number; where: string | undefined }>();
  for (const column of columns) {
    const previous = seen.has(column.segment) ? result[column.segment] : undefined;
    seen.add(column.segment);
    const other = declared.get(column.segment);
    if (column.blockSize !== undefined && other !== undefined && other.blockSize !== column.blockSize) {
      throw configurationErrors.blockSizeConflict(column.segment, other, {
        blockSize: column.blockSize,
        where: column.where,
      });
    }
    if (column.blockSize !== undefined && other === undefined)
      declared.set(column.segment, { blockSize: column.blockSize, where: column.where });
    const given = user.segments?.[column.segment]?.maxKey ?? user.maxKey;
    const usable =
      (typeof given === 'bigint' && given >= 1n) ||
      (typeof given === 'number' && Number.isSafeInteger(given) && given >= 1);
    let maxKey = usable && BigInt(given) < column.maxKey ? BigInt(given) : column.maxKey;
    if (previous?.maxKey !== undefined && BigInt(previous.maxKey) < maxKey) maxKey = BigInt(previous.maxKey);
    const blockSize = column.blockSize ?? previous?.blockSize ?? user.segments?.[column.segment]?.blockSize;
    result[column.segment] = {
      ...user.segments?.[column.segment],
      ...(blockSize === undefined ? {} : { blockSize }),
      maxKey,
    };
  }
  return result;
}

/**
 * The segment of a table when the application names none: the table's own name, unqualified
 * (`shop.orders` → `orders`), so every adapter and the `hilo` command agree on it.
 */
export function segmentOfTable(table: string): string {
  if (typeof table !== 'string' || table.trim() === '')
    throw HiLoConfigurationError.invalidOption('table', 'a table name', table);
  const dot = table.lastIndexOf('.');
  return dot === -1 ? table : table.slice(dot + 1);
}
