import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { mariadbSequenceSource } from '../src/dialects/mysql/sequence-source.js';

runHiSourceConformance({
  name: 'mariadb sequence',
  kind: 'mysql',
  connect,
  makeSource: (client, { increment, hostileName }) =>
    mariadbSequenceSource(client, { increment, ...(hostileName === undefined ? {} : { name: () => hostileName }) }),
  worker: {
    script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)),
    spec: { source: 'sequence', options: { increment: 100 } },
  },
  releases: false,
  checksIncrement: true,
});
