export { hilo, type HiLoPrismaOptions } from './extension.js';
export type { HiLoPrismaConnectionOptions, HiLoPrismaHandle } from './key-supply.js';
export type {
  HiLoPrismaMetadata,
  HiLoModelMetadata,
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
