import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect } from '../src/operations/connect.js';
import { postgresSequenceSource } from '../src/dialects/postgres/sequence-source.js';

runHiSourceConformance({
  name: 'postgres sequence',
  kind: 'postgres',
  connect,
  makeSource: (client, { increment, hostileName }) =>
    postgresSequenceSource(client, { increment, ...(hostileName === undefined ? {} : { name: () => hostileName }) }),
  worker: {
    script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)),
    spec: { source: 'sequence', options: { increment: 100 } },
  },
  releases: false,
  checksIncrement: true,
});
