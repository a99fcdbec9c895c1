export { hilo, type HiLoPrismaOptions } from './extension.js';
export type { HiLoPrismaConnectionOptions, HiLoPrismaHandle } from './key-supply.js';
export type { HiLoPrismaGraphArgs, HiLoPrismaGraphOptions, HiLoPrismaGraphResult } from './graph.js';
export type {
  HiLoPrismaMetadata,
  HiLoModelMetadata,
  HiLoGraphModelMetadata,
  HiLoRelationMetadata,
  HiLoFieldDefault,
  HiLoModelKey,
  HiLoKeyScalar,
  HiLoKeyOf,
  PrismaModelName,
} from './metadata.js';
export {
  missingKeyFunctionSql,
  missingKeyTriggerSql,
  safetyNetSql,
  type SafetyNetDialect,
  type MissingKeyFunctionOptions,
} from './safety-net.js';
export {
  buildMetadata,
  parseHiLoComment,
  renderMetadataModule,
  type HiLoCommentOptions,
} from './generator/build-metadata.js';
// hilo-core's typed errors, so that `instanceof` needs no second import (the same classes: one check catches both)
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
  HiLoStoreBehindError,
  HiLoSynchronousStandbyError,
  HiLoKeyLimitError,
  HiLoClosedError,
  HiLoGraphLoadError,
  type HiLoErrorCode,
  type HiLoHint,
  type MismatchOverlap,
  type StoreBehindDetails,
} from 'hilo-core';
