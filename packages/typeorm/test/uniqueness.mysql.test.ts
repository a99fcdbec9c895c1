import { describeMysql } from '@hilo/testing';
import { uniquenessSuite } from './support/uniqueness-suite.js';

describeMysql('typeorm on mariadb with a hi table: keys stay unique', (db) => uniquenessSuite(db, 'table'));
describeMysql('typeorm on mariadb with sequences: keys stay unique', (db) =>
  uniquenessSuite(db, 'sequence', { processes: false }),
);
