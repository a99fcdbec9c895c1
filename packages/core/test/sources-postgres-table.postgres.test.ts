import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { postgresTableSource } from '../src/dialects/postgres/table-source.js';

runHiSourceConformance({
  name: 'postgres table',
  kind: 'postgres',
  connect,
  makeSource: (client, { hostileName }) =>
    postgresTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: {
    script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)),
    spec: { source: 'table', options: {} },
  },
  releases: true,
  checksIncrement: false,
});
