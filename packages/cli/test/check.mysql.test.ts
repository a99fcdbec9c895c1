import { describeMysql } from '@hilo/testing';
import { checkSuite } from './check-suite.js';

for (const source of ['sequence', 'table'] as const) {
  describeMysql(`mysql: hilo check, ${source} source`, (db) => checkSuite(() => db.url, source));
}
