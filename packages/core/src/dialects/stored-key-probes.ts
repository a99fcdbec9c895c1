import type { StoredKeyProbeRules } from '../sql/stored-key-probe-rules.js';
import type { SqlDialect } from '../sql/sql-client.js';
import { mysqlStoredKeyProbe } from './mysql/stored-key-probe.js';
import { postgresStoredKeyProbe } from './postgres/stored-key-probe.js';
import { sqliteStoredKeyProbe } from './sqlite/stored-key-probe.js';

/** Each database's rules for probing stored keys written as text and for reading its catalog, by name. */
export const STORED_KEY_PROBES: Readonly<Record<SqlDialect, StoredKeyProbeRules>> = {
  postgres: postgresStoredKeyProbe,
  mysql: mysqlStoredKeyProbe,
  sqlite: sqliteStoredKeyProbe,
};
