import { describeMysql } from '@hilo/testing';
import { startUpSuite } from './start-up-suite.js';

for (const source of ['sequence', 'table'] as const) {
  describeMysql(`prisma: start-up check on MariaDB, ${source} source`, (db) => startUpSuite('mysql', db, source));
}
