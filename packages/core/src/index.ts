export {
  HiLoError,
  HiLoConfigurationError,
  HiLoNotReadyError,
  HiLoSourceUnavailableError,
  HiLoSourceError,
  HiLoTimeoutError,
  HiLoOverflowError,
  HiLoExhaustedError,
  HiLoMismatchError,
  HiLoClosedError,
  type HiLoErrorCode,
  type HiLoHint,
} from './errors.js';
export type { Block, HiSource, ReserveRequest, KeyType, KeyOf } from './types.js';
export type { HiLoEvent, SegmentStats } from './events.js';
export { GENERATOR_OPTION_NAMES, type HiLoGeneratorOptions, type SegmentOptions, type IdFormat } from './options.js';
export { createHiLoGenerator, type HiLoGenerator } from './generator.js';
export { memorySource, type MemorySource, type MemorySourceOptions } from './memory-source.js';
export type { SqlClient, SqlExecutor, SqlResult, SqlDialect } from './sql/sql-client.js';
export * from './sql/index.js';
export * from './presets/index.js';
export {
  keyGuardSql,
  ensureKeyGuard,
  missingKeyFunctionSql,
  missingKeyTriggerSql,
  keyGuardTriggerName,
  MISSING_KEY_FUNCTION,
  type KeyGuardTarget,
  type KeyGuardDialect,
  type MissingKeyFunctionOptions,
} from './sql/key-guard.js';
export {
  openKeySupply,
  KEY_SUPPLY_OPTION_NAMES,
  keyToField,
  segmentOfTable,
  type KeySupply,
  type KeySupplyOptions,
  type KeyField,
} from './adapter-kit.js';
