import { describePostgres } from '@hilo/testing';
import { startUpSuite } from './start-up-suite.js';

for (const source of ['sequence', 'table'] as const) {
  describePostgres(`prisma: start-up check on PostgreSQL, ${source} source`, (db) =>
    startUpSuite('postgres', db, source),
  );
}
