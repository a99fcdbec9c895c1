export { startEmbeddedPostgres, freePort, type RunningPostgres } from './embedded-postgres.ts';
export { isCI, envKeys, defaultMysqlUrlHint } from './environment.ts';
export { probePostgres, probeMysql, redact } from './probe.ts';
export {
  describeDatabase,
  describePostgres,
  describeMysql,
  createPostgresDatabase,
  createMysqlDatabase,
  postgresContents,
  databaseProblem,
  randomName,
  type TestDatabase,
} from './databases.ts';
export {
  runHiSourceConformance,
  type HiSourceConformanceOptions,
  type ConformanceSource,
  type SourceSettings,
} from './conformance/hi-source-suite.ts';
export {
  runAdapterConformance,
  type AdapterHarness,
  type AdapterShop,
  type ConformanceHiLoOptions,
  type GraphKeys,
  type StoredRows,
} from './conformance/adapter-suite.ts';
export {
  startFaultProxy,
  useFaultProxy,
  withReservationCuts,
  timed,
  type FaultProxy,
  type FaultMode,
  type FaultProxyPerTest,
} from './fault-proxy.ts';
export {
  hibernateClasspath,
  describeHibernate,
  startHibernateNode,
  startHibernateServer,
  type HibernateNode,
  type HibernateServer,
} from './hibernate.ts';
export { workerMapping } from './worker-mapping.ts';
export {
  expectSourceLayoutPassedThrough,
  type SourceLayoutOptions,
  type SourceLayoutSubject,
} from './source-layout.ts';
export { usePostgresJs, type PostgresJsSql } from './postgres-js.ts';
export {
  startReplicatedPostgres,
  describeReplication,
  replicationProblem,
  STANDBY_NAME,
  type ReplicatedPostgres,
  type ReplicationOptions,
  type ReplicationPerTest,
  type ReplicaRole,
  type ServerIdentity,
} from './replication.ts';
export {
  startReplicatedMariadb,
  describeMariadbReplication,
  mariadbReplicationProblem,
  MARIADB_REPLICATION_DATABASE,
  type ReplicatedMariadb,
  type MariadbReplicationPerTest,
  type MariadbRole,
} from './mariadb-replication.ts';
export { setBackHiStores, errorCodes, runStatements, withSearchPath } from './store-set-back.ts';
export {
  startPgBouncer,
  describePgBouncer,
  pgBouncerProblem,
  type PoolMode,
  type RunningPgBouncer,
  type PgBouncerPerTest,
} from './pgbouncer.ts';
export {
  startGaleraCluster,
  describeGalera,
  galeraProblem,
  GALERA_DATABASE,
  GALERA_NODES,
  type GaleraCluster,
  type GaleraPerFile,
} from './galera.ts';
export {
  startPatroniCluster,
  describePatroni,
  patroniProblem,
  PATRONI_NODES,
  type PatroniCluster,
  type PatroniMember,
  type PatroniOptions,
  type PatroniPerFile,
} from './patroni.ts';
export { startNeonRelay, type NeonRelay } from './neon-relay.ts';
export { describeD1, d1Problem, type D1Binding, type D1Statement, type D1Result, type D1PerTest } from './d1.ts';
