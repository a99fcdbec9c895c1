export { HiLo, hiloConfig, type HiLoOptions, type HiLoExtension } from './extension.js';
export { hiloKey, hiloBigintKey, hiloKeyOptions, type HiLoKeyOptions } from './key.js';
