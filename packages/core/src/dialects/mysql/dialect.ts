import { codeOf, type Dialect } from '../../sql/dialect.js';
import { causalReadOn, GALERA_IDENTITY, isGalera } from './galera.js';

/** MySQL/MariaDB error numbers after which retrying may succeed. */
const RETRYABLE = new Set([
  1040, // too many connections
  1047, // Galera: the node is not in the Primary Component ("WSREP has not yet prepared node for application use")
  1053, // server shutdown in progress
  1180, // Galera: a commit the node could not replicate (it left the Primary Component meanwhile)
  1205, // lock wait timeout
  1213, // deadlock
  1317, // query interrupted
  1927, // connection killed (MariaDB)
  2002, // can't connect
  2003, // can't connect to server
  2006, // server has gone away
  2013, // lost connection during query
  4031, // disconnected by the server for inactivity
]);

/** mysql2's own codes for the same failures. */
const RETRYABLE_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_UNKNOWN_COM_ERROR',
  'ER_ERROR_DURING_COMMIT',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  // the `mariadb` connector: its pool found no connection in time (the server is down, refusing, or saturated),
  // a connection could not be opened in time, or the server closed one
  'ER_GET_CONNECTION_TIMEOUT',
  'ER_CONNECTION_TIMEOUT',
  'ER_SOCKET_UNEXPECTED_CLOSE',
]);

/**
 * Errors of a Galera node that cannot serve while other nodes may (issue #47): 1047, outside the Primary Component;
 * 1180, a commit it could not replicate. Retryable, and the connection is closed so a load balancer can move it.
 */
const NODE_UNAVAILABLE = new Set([1047, 1180]);

/** MariaDB and MySQL (mysql2, mysql, the mariadb connector): error numbers, the drivers' codes, and their `fatal` flag. */
export const mysqlDialect: Dialect = {
  name: 'mysql',
  displayName: 'MariaDB',
  // TypeORM `mysql`/`mariadb`, MikroORM MySqlPlatform/MariaDbPlatform, Prisma `mysql`, Drizzle MySqlDialect, Kysely MysqlAdapter
  reportedAs: ['mysql', 'mariadb', 'mysql2'],
  urlExample: 'mysql:// (MariaDB)',
  urlSchemes: ['mysql', 'mariadb'],
  placeholder: () => '?',
  quote: (name) => `\`${name.replaceAll('`', '``')}\``,
  asText: (expression) => `cast(${expression} as char)`,
  asSigned: (expression) => `cast(${expression} as signed)`,
  // a trigger has `;` inside its BEGIN … END: the mysql/mariadb clients read it between DELIMITER lines
  scriptStatement: (statement) =>
    /^create trigger /i.test(statement) ? `DELIMITER //\n${statement} //\nDELIMITER ;\n` : `${statement};\n`,
  // backslash is an escape character in MariaDB string literals unless NO_BACKSLASH_ESCAPES is set
  literal: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
  hasSequences: true,
  sequencesMayBeTables: true,
  hasSchemas: true,
  currentSchema: 'database()',
  namesIgnoreCase: true,
  tableSuffix: ' engine=InnoDB',
  defaultSource: 'table',
  // replication requires every server to have its own server_id, so a promoted replica has another one; a restart
  // of the same server keeps it (MariaDB has no server_uuid; MySQL's would do as well, but MariaDB refuses it). On a
  // Galera node the identity is the cluster's (galera.ts): a load balancer moving connections between nodes with
  // distinct server_ids is not a failover (issue #47)
  replication: {
    identity: `concat('server_id ', @@server_id)`,
    identityMayReturn: true,
    identityOn: async (client) => ((await isGalera(client)) ? GALERA_IDENTITY : `concat('server_id ', @@server_id)`),
    // a Galera node applies other nodes' write sets after their commit returned: reads that must see them wait
    causalRead: causalReadOn,
  },
  isTransient(error) {
    if (error.fatal === true) return true;
    if (typeof error.errno === 'number' && RETRYABLE.has(error.errno)) return true;
    const code = codeOf(error);
    if (code !== undefined && RETRYABLE_CODES.has(code)) return true;
    return undefined;
  },
  // a deadlock, or on Galera a certification conflict (another node's transaction on the same row committed first)
  isConflict: (error) => error.errno === 1213 || codeOf(error) === 'ER_LOCK_DEADLOCK',
  isNodeUnavailable: (error) => typeof error.errno === 'number' && NODE_UNAVAILABLE.has(error.errno),
  isMissingObject: (error) => error.errno === 1146 || codeOf(error) === 'ER_NO_SUCH_TABLE',
  isDuplicate: (error) => error.errno === 1050 || error.errno === 1062,
};
