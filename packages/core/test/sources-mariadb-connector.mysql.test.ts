// The hi-source conformance suite on the `mariadb` connector (through mariadbClient()): the hi table and the
// MariaDB sequence, their worker processes on the connector too.
import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { mariadbSequenceSource } from '../src/dialects/mysql/sequence-source.js';
import { mysqlTableSource } from '../src/dialects/mysql/table-source.js';
import { connectMariadb } from './mariadb-support.js';

const script = fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url));

runHiSourceConformance({
  name: 'mariadb table on the mariadb connector',
  kind: 'mysql',
  connect: connectMariadb,
  makeSource: (client, { hostileName }) =>
    mysqlTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: { script, spec: { source: 'table', options: {}, driver: 'mariadb' } },
  releases: true,
  checksIncrement: false,
});

runHiSourceConformance({
  name: 'mariadb sequence on the mariadb connector',
  kind: 'mysql',
  connect: connectMariadb,
  makeSource: (client, { increment, hostileName }) =>
    mariadbSequenceSource(client, { increment, ...(hostileName === undefined ? {} : { name: () => hostileName }) }),
  worker: { script, spec: { source: 'sequence', options: { increment: 100 }, driver: 'mariadb' } },
  releases: false,
  checksIncrement: true,
});
