// The adapter kit's own building blocks, one file per concern; `kit.ts` (`hilo-core/adapter-kit`) exports them
// with the pieces of the lower layers adapters share.
//   key-supply.ts       openKeySupply: where keys come from (url, client, generator, the adapter's connection)
//   owned-generator.ts  a generator closed together with what was opened for it
//   options.ts          the generator and hi-source options every adapter passes through, and their names
//   stored-keys.ts      verified blocks from the key columns an ORM maps
//   key-fields.ts       keys as the ORM's fields hold them, and column types' largest keys
//   segments.ts         segments and their limits from the key columns found
//   object-mark.ts      a mark on an ORM's entities nothing else sees
//   graph-rows.ts       graph-load rows backed by the caller's objects, and the target for a driver pool
export {
  openKeySupply,
  checkKeySupplyOptions,
  KEY_SUPPLY_OPTION_NAMES,
  type KeySupplyChecks,
  type AdapterConnection,
  type KeySupply,
  type KeySupplyOptions,
  type KeySupplyInput,
  type KeySupplySetup,
  type KeySupplyWording,
} from './key-supply.js';
export { ownGenerator, type OwnedGenerator } from './owned-generator.js';
export {
  PASSED_GENERATOR_OPTION_NAMES,
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  refuseLayoutInMemory,
  type PassedGeneratorOptions,
  type HiSourceLayout,
} from './options.js';
export { adapterStoredKeys, checkVerifyBlocks, type AdapterVerifyOptions } from './stored-keys.js';
export { keyToField, columnTypeMaxKey, BIGINT_MAX, type KeyField, type KeyFieldLimits } from './key-fields.js';
export { segmentsForColumns, segmentOfTable, type KeyColumnLimit, type SegmentLimits } from './segments.js';
export { objectMark, type ObjectMark } from './object-mark.js';
export { propertyRow, poolGraphTarget, type GraphRowMapping } from './graph-rows.js';
