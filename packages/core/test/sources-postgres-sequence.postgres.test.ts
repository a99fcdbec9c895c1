import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { connect, postgresSequenceSource } from '../src/sql/index.js';

runHiSourceConformance({
  name: 'postgres sequence',
  kind: 'postgres',
  connect,
  makeSource: (client, { increment, hostileName }) =>
    postgresSequenceSource(client, { increment, ...(hostileName === undefined ? {} : { name: () => hostileName }) }),
  worker: { script: fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url)), spec: { source: 'sequence', options: { increment: 100 } } },
  releases: false,
  checksIncrement: true,
});
