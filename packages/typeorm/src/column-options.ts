import { checkInteger, MAX_BLOCK_SIZE, validateSegment } from 'hilo-core/adapter-kit';
import { HiLoConfigurationError } from 'hilo-core';
import { configurationErrors } from './error-messages.js';

/** Options of {@link HiLoGeneratedColumn}. */
export interface HiLoColumnOptions {
  /**
   * The key space this column draws from: one sequence or hi-table row per segment.
   * @default the entity's table name
   * @example
   * ```ts
   * @HiLoGeneratedColumn({ segment: 'orders' }) id!: number;
   * ```
   */
  segment?: string;
  /**
   * Keys reserved per round trip for this segment (overrides the `blockSize` given to `installHiLo`).
   * @default the installation's `blockSize` (100)
   */
  blockSize?: number;
  /**
   * JavaScript type of the key: `'number'` (refuses keys above `Number.MAX_SAFE_INTEGER`) or `'bigint'`.
   * @default "number"
   */
  keyType?: 'number' | 'bigint';
  /**
   * Database column type. `'int'` caps keys at 2,147,483,647.
   * @default "bigint"
   */
  type?: 'bigint' | 'int' | 'integer';
  /**
   * Database column name.
   * @default the property name (after the DataSource's naming strategy)
   */
  name?: string;
  /**
   * Column comment in the database.
   * @default none
   */
  comment?: string;
}

/** {@link HiLoColumnOptions} after validation, with defaults applied (segment stays optional: it needs the table). */
export type ResolvedColumnOptions = Readonly<HiLoColumnOptions & Required<Pick<HiLoColumnOptions, 'keyType' | 'type'>>>;

const KNOWN = new Set(['segment', 'blockSize', 'keyType', 'type', 'name', 'comment']);

/** Validates decorator options; throws `HiLoConfigurationError` naming the bad value. */
export function resolveColumnOptions(options: HiLoColumnOptions | undefined, where: string): ResolvedColumnOptions {
  const o = options ?? {};
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw HiLoConfigurationError.invalidOption(`${where} options`, 'an object', o);
  }
  HiLoConfigurationError.checkOptionNames(o, KNOWN, where);
  const { segment, blockSize, name, comment } = o;
  if (segment !== undefined) validateSegment(segment, `${where} segment`);
  if (blockSize !== undefined) checkInteger(`${where} blockSize`, blockSize, { max: MAX_BLOCK_SIZE });
  const keyType = o.keyType ?? 'number';
  if (keyType !== 'number' && keyType !== 'bigint') {
    throw HiLoConfigurationError.invalidOption(`${where} keyType`, '"number" or "bigint"', keyType);
  }
  const type = o.type ?? 'bigint';
  if (type !== 'bigint' && type !== 'int' && type !== 'integer') {
    throw HiLoConfigurationError.invalidOption(`${where} type`, '"bigint", "int" or "integer"', type);
  }
  if (keyType === 'bigint' && type !== 'bigint') {
    throw configurationErrors.bigintKeyOnNarrowColumn(where, type);
  }
  if (name !== undefined && (typeof name !== 'string' || name.length === 0)) {
    throw HiLoConfigurationError.invalidOption(`${where} name`, 'a non-empty column name', name);
  }
  if (comment !== undefined && typeof comment !== 'string') {
    throw HiLoConfigurationError.invalidOption(`${where} comment`, 'a string', comment);
  }
  return { segment, blockSize, keyType, type, name, comment };
}
