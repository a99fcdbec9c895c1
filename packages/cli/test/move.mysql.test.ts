import { describeMysql } from '@hilo/testing';
import { moveSuite } from './move-suite.js';

for (const source of ['sequence', 'table'] as const) {
  describeMysql(`mysql: hilo move, ${source} source`, (db) => moveSuite(() => db.url, source));
}
