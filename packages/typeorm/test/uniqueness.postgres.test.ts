import { describePostgres } from '@hilo/testing';
import { uniquenessSuite } from './support/uniqueness-suite.js';

describePostgres('typeorm on postgres with sequences: keys stay unique', (db) => uniquenessSuite(db, 'sequence'));
describePostgres('typeorm on postgres with a hi table: keys stay unique', (db) =>
  uniquenessSuite(db, 'table', { processes: false }),
);
