// `hilo-core/adapter-kit`: what hilo's adapters (and anyone writing one) share, kept off the root so that
// applications see only what they call. Each export keeps its TSDoc where it is defined: the kit's own pieces in
// adapter-kit/ (one file per concern), the rest in the layer it belongs to.
export { recordColumns } from './operations/column-registry.js';
export {
  adapterStoredKeys,
  type AdapterVerifyOptions,
  checkVerifyBlocks,
  openKeySupply,
  checkKeySupplyOptions,
  type KeySupplyChecks,
  ownGenerator,
  type OwnedGenerator,
  KEY_SUPPLY_OPTION_NAMES,
  PASSED_GENERATOR_OPTION_NAMES,
  type PassedGeneratorOptions,
  type HiSourceLayout,
  HI_SOURCE_LAYOUT_OPTION_NAMES,
  refuseLayoutInMemory,
  keyToField,
  segmentsForColumns,
  type KeyFieldLimits,
  type KeyColumnLimit,
  type SegmentLimits,
  segmentOfTable,
  type KeySupply,
  type KeySupplyOptions,
  type KeySupplyInput,
  type KeySupplyWording,
  type KeySupplySetup,
  type AdapterConnection,
  type KeyField,
  columnTypeMaxKey,
  BIGINT_MAX,
  objectMark,
  type ObjectMark,
  propertyRow,
  poolGraphTarget,
  type GraphRowMapping,
} from './adapter-kit/index.js';
export {
  describeGraphTables,
  checkedGraphInput,
  type GraphTableRequest,
  type DescribedGraphTable,
} from './graph/catalog.js';
export { keysInMemoryOnly } from './graph/keys-in-memory.js';
export { GENERATOR_OPTION_NAMES } from './engine/options.js';
export { checkOneSegmentPerColumn } from './operations/stored-key-columns.js';
export { requireStoredTables } from './operations/store-check.js';
export type { StoredKeys, StoredKey, StoredKeyKind } from './engine/types.js';
export {
  missingTableRule,
  type MissingProbeTable,
  type MissingTableWording,
  type OnMissingTable,
} from './operations/probe-tables.js';
export type { OnUnreadableKeys } from './operations/stored-keys.js';
export {
  privateDatabaseSource,
  type PrivateDatabaseQuery,
  type StoredKeyColumn,
} from './dialects/sqlite/private-source.js';
export { checkInteger, MAX_BLOCK_SIZE, type IntegerBounds } from './engine/checks.js';
export {
  keyGuardSchemaSql,
  missingKeyFunctionSql,
  missingKeyTriggerSql,
  keyGuardTriggerName,
  MISSING_KEY_FUNCTION,
  type MissingKeyFunctionOptions,
} from './operations/key-guard.js';
export { toHiLoError, isTransientDriverError, type ErrorContext } from './operations/driver-errors.js';
export { redactUrl } from './operations/connect.js';
export { settlesWithin } from './sql/connect-support.js';
export { defaultSourceKind, scriptStatement } from './operations/sources.js';
export { DEFAULT_TABLE } from './sources/table-source.js';
export { validateIdentifier, IDENTIFIER_PATTERN } from './sql/identifiers.js';
export { validateSegment } from './engine/segment-name.js';
export { quoteIdentifier, dialectOf } from './dialects/index.js';
