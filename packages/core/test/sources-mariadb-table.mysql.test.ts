import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { mysqlTableSource } from '../src/dialects/mysql/table-source.js';

runHiSourceConformance({
  name: 'mariadb table',
  kind: 'mysql',
  connect,
  makeSource: (client, { hostileName }) =>
    mysqlTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: {
    script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)),
    spec: { source: 'table', options: {} },
  },
  releases: true,
  checksIncrement: false,
});
