import { describePostgres } from '@hilo/testing';
import { graphSuite } from './graph-suite.js';

describePostgres('prisma: createGraph() on PostgreSQL (binary COPY through the PrismaPg pool)', (db) =>
  graphSuite('postgres', db),
);
