// Every preset in one import, for hilo-core's own tests; the package's public API is src/index.ts.
export type { InteropPreset } from './shared.js';
export { efCorePreset, EF_CORE_SEQUENCE, type EfCorePresetOptions } from './efcore.js';
export {
  hibernateBlock,
  hibernateSequencePreset,
  hibernateTablePreset,
  type HibernateOptimizer,
  type HibernateSequencePresetOptions,
  type HibernateTablePresetOptions,
} from './hibernate.js';
export { martenPreset, type MartenPresetOptions } from './marten.js';
export { nhibernatePreset, type NHibernatePresetOptions } from './nhibernate.js';
