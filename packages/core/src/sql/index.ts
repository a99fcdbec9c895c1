// The SQL layer in one import, for hilo-core's own tests; the package's public API is src/index.ts.
export type { SqlClient, SqlExecutor, SqlResult, SqlDialect } from './sql-client.js';
export { pgClient, type PgPoolLike, type PgPoolClientLike, type PgQueryResultLike, type PgClientOptions } from '../dialects/postgres/client.js';
export {
  mysqlClient,
  type MysqlPoolLike,
  type MysqlPoolConnectionLike,
  type MysqlQueryableLike,
  type MysqlClientOptions,
} from '../dialects/mysql/client.js';
export { sqliteClient, type SqliteDatabaseLike, type SqliteStatementLike, type SqliteClientOptions } from '../dialects/sqlite/client.js';
export { connect, redactUrl, type ConnectOptions } from '../operations/connect.js';
export { toHiLoError, isTransientDriverError, type ErrorContext } from './driver-errors.js';
export type { SqlHiSource, FloorFrom, FloorResult, SegmentStatus } from '../sources/sql-hi-source.js';
export { sequenceSource, tableSource, defaultSourceKind, type SqlSourceKind } from '../operations/sources.js';
export { SEQUENCE_SUFFIX, type SequenceSourceOptions, type SequenceStrategy } from '../sources/sequence-source.js';
export { DEFAULT_TABLE, type TableSourceOptions, type TableStrategy } from '../sources/table-source.js';
export { schemaSql, ensureSchema, DEFAULT_SEQUENCE_INCREMENT, type SchemaOptions } from '../operations/schema.js';
export { raiseFloor, type RaiseFloorOptions } from '../operations/floor.js';
export { segmentStatus, type StatusOptions } from '../operations/status.js';
export { alterBlockSize, type AlterBlockSizeOptions, type AlterBlockSizeResult } from '../operations/alter.js';
export { createHiLo, type CreateHiLoOptions } from '../operations/create-hilo.js';
export { postgresSequenceSource } from '../dialects/postgres/sequence-source.js';
export { postgresTableSource } from '../dialects/postgres/table-source.js';
export { mariadbSequenceSource } from '../dialects/mysql/sequence-source.js';
export { mysqlTableSource } from '../dialects/mysql/table-source.js';
export { sqliteTableSource } from '../dialects/sqlite/table-source.js';
export {
  blockFromValue,
  blocksFromValues,
  mergeBlocks,
  blocksFromValueRange,
  releaseTail,
  keyArithmetic,
  floorValue,
  STRATEGIES,
  type HiLoStrategy,
} from '../engine/strategies.js';
export { validateIdentifier, validateSegment, quoteIdentifier, IDENTIFIER_PATTERN } from './identifiers.js';
