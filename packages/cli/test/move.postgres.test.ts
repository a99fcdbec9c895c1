import { describePostgres } from '@hilo/testing';
import { moveSuite } from './move-suite.js';

for (const source of ['sequence', 'table'] as const) {
  describePostgres(`postgres: hilo move, ${source} source`, (db) => moveSuite(() => db.url, source));
}
