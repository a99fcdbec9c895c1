import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect, sqliteTableSource } from '../src/sql/index.js';

runHiSourceConformance({
  name: 'sqlite table',
  kind: 'sqlite',
  connect,
  makeSource: (client, { hostileName }) => sqliteTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: { script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)), spec: { source: 'table', options: {} } },
  releases: true,
  checksIncrement: false,
});
