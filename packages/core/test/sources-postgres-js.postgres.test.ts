// The hi-source conformance suite on postgres.js (the `postgres` package through postgresJsClient()): the
// sequence and the table source, their worker processes on postgres.js too.
import { fileURLToPath } from 'node:url';
import { runHiSourceConformance } from '@hilo/testing';
import { postgresSequenceSource } from '../src/dialects/postgres/sequence-source.js';
import { postgresTableSource } from '../src/dialects/postgres/table-source.js';
import { connectPostgresJs } from './postgres-js-support.js';

const script = fileURLToPath(new URL('./workers/reserve-worker.ts', import.meta.url));

runHiSourceConformance({
  name: 'postgres sequence on postgres.js',
  kind: 'postgres',
  connect: connectPostgresJs,
  makeSource: (client, { increment, hostileName }) =>
    postgresSequenceSource(client, { increment, ...(hostileName === undefined ? {} : { name: () => hostileName }) }),
  worker: { script, spec: { source: 'sequence', options: { increment: 100 }, driver: 'postgres.js' } },
  releases: false,
  checksIncrement: true,
});

runHiSourceConformance({
  name: 'postgres table on postgres.js',
  kind: 'postgres',
  connect: connectPostgresJs,
  makeSource: (client, { hostileName }) =>
    postgresTableSource(client, hostileName === undefined ? {} : { table: hostileName }),
  worker: { script, spec: { source: 'table', options: {}, driver: 'postgres.js' } },
  releases: true,
  checksIncrement: false,
});
