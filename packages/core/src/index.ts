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
  HiLoClosedError,
  type HiLoErrorCode,
  type HiLoHint,
} from './errors.js';
export type { Block, HiSource, ReserveRequest, KeyType, KeyOf } from './types.js';
export type { HiLoEvent, SegmentStats } from './events.js';
export type { HiLoGeneratorOptions, SegmentOptions, IdFormat } from './options.js';
export { createHiLoGenerator, type HiLoGenerator } from './generator.js';
export { memorySource, type MemorySource, type MemorySourceOptions } from './memory-source.js';
export type { HiLoStrategy } from './strategies.js';

// databases: clients, sources, schema and maintenance
export type { SqlClient, SqlExecutor, SqlResult, SqlDialect } from './sql/sql-client.js';
export { pgClient, type PgPoolLike, type PgPoolClientLike, type PgQueryResultLike, type PgClientOptions } from './dialects/postgres/client.js';
export {
  postgresJsClient,
  type PostgresJsSqlLike,
  type PostgresJsTransactionLike,
  type PostgresJsRowsLike,
  type PostgresJsClientOptions,
} from './dialects/postgres/postgres-js.js';
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
export { sqliteClient, type SqliteDatabaseLike, type SqliteStatementLike, type SqliteClientOptions } from './dialects/sqlite/client.js';
export { connect, type ConnectOptions } from './sql/connect.js';
export { createHiLo, type CreateHiLoOptions } from './sql/create-hilo.js';
export type { SqlHiSource, FloorFrom, FloorResult, SegmentStatus } from './sql/sql-hi-source.js';
export { sequenceSource, tableSource, type SqlSourceKind } from './sql/sources.js';
export type { SequenceSourceOptions, SequenceStrategy } from './sql/sequence-source.js';
export type { TableSourceOptions, TableStrategy } from './sql/table-source.js';
export { schemaSql, ensureSchema, type SchemaOptions } from './sql/schema.js';
export { raiseFloor, type RaiseFloorOptions } from './sql/floor.js';
export { segmentStatus, type StatusOptions } from './sql/status.js';
export { alterBlockSize, type AlterBlockSizeOptions, type AlterBlockSizeResult } from './sql/alter.js';
export { keyGuardSql, ensureKeyGuard, type KeyGuardTarget, type KeyGuardDialect } from './sql/key-guard.js';

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
