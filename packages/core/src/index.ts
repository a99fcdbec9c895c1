// hilo-core's public API: what applications call. Adapter authors find the building blocks they share
// (key supply, key conversion, option names, driver-error mapping, identifier quoting) at
// `hilo-core/adapter-kit`; OpenTelemetry metrics are at `hilo-core/otel`.
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
  type GraphLoadFailure,
  type StoreBehindDetails,
  type MismatchOverlap,
  type ColumnClaim,
  type HiLoErrorCode,
  type HiLoHint,
} from './errors.js';
export type {
  Block,
  HiSource,
  ReserveRequest,
  KeyType,
  KeyOf,
  StoredKeys,
  StoredKey,
  StoredKeyColumn,
  StoredKeyKind,
  SharedStore,
  StoreOverlap,
  ServerChange,
} from './engine/types.js';
export type { HiLoEvent, LostReason, SegmentStats } from './engine/events.js';
export type { SegmentState } from './engine/lifecycle.js';
export type { HiLoGeneratorOptions, SegmentOptions, IdFormat } from './engine/options.js';
export { createHiLoGenerator, type HiLoGenerator } from './engine/generator.js';
export { memorySource, type MemorySource, type MemorySourceOptions } from './sources/memory-source.js';
export type { HiLoStrategy } from './engine/strategies.js';

// databases: clients, sources, schema and maintenance
export type { SqlClient, SqlExecutor, SqlResult, SqlDialect } from './sql/sql-client.js';
export {
  pgClient,
  type PgPoolLike,
  type PgPoolClientLike,
  type PgQueryResultLike,
  type PgClientOptions,
} from './dialects/postgres/client.js';
export {
  postgresJsClient,
  type PostgresJsSqlLike,
  type PostgresJsTransactionLike,
  type PostgresJsRowsLike,
  type PostgresJsClientOptions,
} from './dialects/postgres/postgres-js.js';
export { pgliteClient, type PgliteLike, type PgliteTransactionLike } from './dialects/postgres/pglite.js';
export {
  mysqlClient,
  type MysqlPoolLike,
  type MysqlPoolConnectionLike,
  type MysqlCallbackPoolLike,
  type MysqlCallbackConnectionLike,
  type MysqlQueryableLike,
  type MysqlClientOptions,
} from './dialects/mysql/client.js';
export {
  mariadbClient,
  type MariadbPoolLike,
  type MariadbPoolConnectionLike,
  type MariadbQueryableLike,
  type MariadbClientOptions,
} from './dialects/mysql/mariadb.js';
export {
  sqliteClient,
  type SqliteDatabaseLike,
  type SqliteStatementLike,
  type SqliteClientOptions,
} from './dialects/sqlite/client.js';
export {
  d1Client,
  type D1DatabaseLike,
  type D1PreparedStatementLike,
  type D1ResultLike,
} from './dialects/sqlite/d1-client.js';
export { connect, type ConnectOptions } from './operations/connect.js';
export { createHiLo, type CreateHiLoOptions } from './operations/create-hilo.js';
export { sqlStoredKeys, type OnUnreadableKeys, type SqlStoredKeysOptions } from './operations/stored-keys.js';
export type { SqlHiSource, FloorFrom, FloorResult, SegmentStatus } from './sources/sql-hi-source.js';
export { sequenceSource, tableSource, type SqlSourceKind } from './operations/sources.js';
export type { SequenceSourceOptions, SequenceStrategy } from './sources/sequence-source.js';
export type { TableSourceOptions, TableStrategy } from './sources/table-source.js';
export { schemaSql, ensureSchema, type SchemaOptions } from './operations/schema.js';
export { raiseFloor, type RaiseFloorOptions } from './operations/floor.js';
export { checkStore, type CheckStoreOptions, type StoreCheck } from './operations/store-check.js';
export { segmentStatus, type StatusOptions } from './operations/status.js';
export { alterBlockSize, type AlterBlockSizeOptions, type AlterBlockSizeResult } from './operations/alter.js';
export { moveColumn, type MoveColumnOptions, type MoveColumnResult } from './operations/move-column.js';
export {
  pgGraphTarget,
  type PgGraphTargetOptions,
  type PgGraphConnectionLike,
  type PgGraphPoolLike,
} from './dialects/postgres/graph-target.js';
export { sqliteGraphTarget, type SqliteGraphTargetOptions } from './dialects/sqlite/graph-target.js';
export {
  mysqlGraphTarget,
  type MysqlGraphTargetOptions,
  type MysqlGraphPoolLike,
} from './dialects/mysql/graph-target.js';
export type { GraphTarget, BulkConnection, BulkTableWriter, BulkErrorPlace } from './sql/bulk.js';
export { loadGraph, type LoadGraphOptions, type GraphLoadResult, type GraphNode } from './graph/load.js';
export type { GraphTable, GraphReference } from './graph/plan.js';
export { keyGuardSql, ensureKeyGuard, type KeyGuardTarget, type KeyGuardDialect } from './operations/key-guard.js';

// sharing a schema with another system's hi/lo
export type { InteropPreset } from './presets/shared.js';
export { efCorePreset, type EfCorePresetOptions } from './presets/efcore.js';
export {
  hibernateSequencePreset,
  hibernateTablePreset,
  type HibernateOptimizer,
  type HibernateSequencePresetOptions,
  type HibernateTablePresetOptions,
} from './presets/hibernate.js';
export { martenPreset, type MartenPresetOptions } from './presets/marten.js';
export { nhibernatePreset, type NHibernatePresetOptions } from './presets/nhibernate.js';
