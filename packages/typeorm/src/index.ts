export { HiLoGeneratedColumn, hiloColumn } from './hilo-generated-column.js';
export type { HiLoColumnOptions } from './column-options.js';
export { hiloKeyTransformer, hiloBigIntKeyTransformer } from './key-transformer.js';
export { installHiLo, withHiLo, hiloOf, HiLoTypeOrm, type HiLoTypeOrmOptions } from './install.js';
export { dataSourceClient } from './driver-client.js';
export type { TypeOrmLoadGraphOptions } from './graph-load.js';
export type { GraphLoadResult } from 'hilo-core';
export { hiloDataSourceFactory } from './nest.js';
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
