import { describeSqlite } from './support/sqlite.js';
import { uniquenessSuite } from './support/uniqueness-suite.js';

describeSqlite('typeorm on a sqlite file with a hi table: keys stay unique', (db) => uniquenessSuite(db, 'table'));
