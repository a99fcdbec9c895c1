export { HiLo, hiloConfig, type HiLoOptions, type HiLoExtension } from './extension.js';
export { hiloKey, hiloBigintKey, hiloKeyOptions, type HiLoKeyOptions } from './key.js';
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
