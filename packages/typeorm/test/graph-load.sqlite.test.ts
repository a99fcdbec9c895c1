import { describeSqlite } from './support/sqlite.js';
import { graphLoadSuite } from './support/graph-load-suite.js';

describeSqlite('typeorm on a sqlite file: loadGraph()', (db) => {
  graphLoadSuite(db);
});
